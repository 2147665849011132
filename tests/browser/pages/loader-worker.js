// A dedicated worker created in the page's first line (loader-first-line.js): the classic loader,
// which loads the rest at once here, then an ifAvailable request for 'x' when the page says so.
importScripts('../../../build/dist/weblocks-polyfill.js');
self.onmessage = () => {
  navigator.locks.request('x', { ifAvailable: true }, (lock) => (lock === null ? 'held elsewhere' : 'granted here'))
    .then((outcome) => self.postMessage(outcome), (error) => self.postMessage(`${error.name}: ${error.message}`));
};
