// A dedicated worker that tries a lock in a storage bucket's lock space (deploy.spec.js).
importScripts('./remove-native.js', '/build/dist/weblocks-polyfill.js');
self.onmessage = async (event) => {
  const { bucket, name } = event.data;
  const locks = (await navigator.storageBuckets.open(bucket)).locks;
  const granted = await locks.request(name, { ifAvailable: true }, (lock) => lock !== null);
  self.postMessage({ granted, held: (await locks.query()).held.map((l) => l.name) });
};
