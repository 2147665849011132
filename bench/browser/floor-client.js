// The floor (bench/browser/first-grant.mjs, `floor`): a navigator.locks.request() that is one round
// trip to a SharedWorker that grants everything at once (floor-hub.js), asked for as ours asks for
// its hub (extendedLifetime), with the port made as the script runs. Not a lock: it measures what
// the platform charges any SharedWorker-based lock space, the part of our first grant no code of
// ours can remove. A dedicated worker gets its port from its creator, pushed as it is constructed.
(function () {
  const callbacks = new Map();
  let next = 0;
  let port = null;
  const queued = [];
  function use(hubPort) {
    port = hubPort;
    port.onmessage = (event) => {
      const callback = callbacks.get(event.data);
      callbacks.delete(event.data);
      callback();
    };
    for (const id of queued.splice(0)) port.postMessage(id);
  }
  if (typeof SharedWorker === 'function') {
    use(new SharedWorker('/bench/browser/floor-hub.js', { name: 'weblocks-floor', extendedLifetime: true }).port);
    const Native = Worker;
    self.Worker = function Worker(url, options) {
      const worker = new Native(url, options);
      const { port1, port2 } = new MessageChannel();
      port.postMessage(null, [port1]);
      worker.postMessage({ floorPort: port2 }, [port2]);
      return worker;
    };
  } else {
    self.addEventListener('message', (event) => { if (event.data && event.data.floorPort) use(event.data.floorPort); });
  }
  const locks = {
    request(name, callback) {
      return new Promise((resolve, reject) => {
        const id = ++next;
        callbacks.set(id, () => { try { resolve(callback({ name, mode: 'exclusive' })); } catch (error) { reject(error); } });
        if (port === null) queued.push(id); else port.postMessage(id);
      });
    },
  };
  Object.defineProperty(navigator, 'locks', { value: locks, configurable: true });
})();
