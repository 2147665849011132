// A dedicated or shared worker of bfcache-page.js: holds, releases or waits for locks when told.
// The polyfill only where the browser has no navigator.locks (an insecure origin).
if (!self.navigator.locks) importScripts('/build/dist/weblocks-polyfill.js');
const releases = new Map();

function serve(port) {
  port.onmessage = async ({ data }) => {
    let value = true;
    if (data.op === 'hold' || data.op === 'wait') {
      const granted = new Promise((resolve) => {
        let done;
        navigator.locks.request(data.name, () => { resolve(true); return new Promise((release) => releases.set(data.name, (then) => { done = then; release(); })); })
          .finally(() => done?.());
      });
      if (data.op === 'hold') value = await granted;
    } else if (data.op === 'release') {
      // Answered once the request's promise has settled (the release is done).
      await new Promise((resolve) => { releases.get(data.name)(resolve); releases.delete(data.name); });
    } else if (data.op === 'query') {
      value = await navigator.locks.query();
    }
    port.postMessage({ call: data.call, value });
  };
}

if (typeof SharedWorkerGlobalScope === 'function' && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = (event) => serve(event.ports[0]);
} else {
  serve(self);
}
