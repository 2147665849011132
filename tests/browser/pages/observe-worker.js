// A dedicated worker (classic, or module with ?module) that loads the classic polyfill and, when
// asked for a name, observes it with the polyfill's observeLocks until the name is held; it
// answers with whether observeLocks returned its stop function at once and the held names seen.
const observeLocks = () => self[Symbol.for('weblocks-wasm.observeLocks')];

self.onmessage = (event) => {
  if (typeof event.data !== 'string') return;
  const name = event.data;
  let stop = null;
  stop = observeLocks()((snapshot) => {
    const held = snapshot.held.map((info) => info.name);
    if (!held.includes(name)) return;
    stop();
    postMessage({ stopAtOnce: typeof stop, held });
  }, { names: [name] });
};
