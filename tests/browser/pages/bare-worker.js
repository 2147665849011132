// A dedicated worker that does not load the polyfill: it records every message it receives.
const received = [];
self.addEventListener('message', (event) => {
  if (event.data === 'report') self.postMessage({ received });
  else received.push(JSON.stringify(event.data));
});
