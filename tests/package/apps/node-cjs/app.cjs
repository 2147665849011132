// Node CommonJS user: require() of the package (require(esm), Node ^20.19 / >=22.12).
const { locks } = require('weblocks-wasm');
require('weblocks-wasm/polyfill');

locks.request('app', async (lock) => {
  const inner = await navigator.locks.request('app', { ifAvailable: true }, (other) => other);
  return { name: lock.name, excluded: inner === null, same: locks === navigator.locks };
}).then((result) => console.log(JSON.stringify(result)));
