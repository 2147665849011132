// A dedicated worker of the demo: its own context in the lock space, with its own short name
// ("Worker 1"), its own requests (driven from the tab that started it) and its own announcements.
import { requestedImplementation, selectLocks } from './lib/implementation.js';
import { claimContextName } from './lib/context-name.js';
import { RequestBook } from './lib/request-book.js';
import { openBus } from './lib/bus.js';
import { createPresence } from './lib/presence.js';

let book;
let presence;
const early = [];
self.onmessage = (event) => (book ? command(event.data) : early.push(event.data));

function command({ type, options, id }) {
  if (type === 'request') book.request(options);
  if (type === 'abort') book.abort(id);
  if (type === 'release') book.release(id);
}

try {
  const { locks, describe } = await selectLocks(requestedImplementation(self.location.search));
  const implementation = { kind: describe().kind };
  // The tab chose this worker's number (workers have no localStorage for the counter); a number
  // found taken is followed by the next ones.
  let number = Number(new URLSearchParams(self.location.search).get('number')) || 1;
  const name = await claimContextName(locks, 'Worker', {
    next: () => number++,
    onLost: (error) => self.postMessage({ type: 'lost', error: { name: error.name, message: error.message } }),
    onRegained: () => presence.announce(),
  });
  const bus = openBus((message) => presence.handle(message));
  book = new RequestBook(locks, () => {
    self.postMessage({ type: 'book', entries: book.list() });
    presence.announce();
  }, (event) => bus.post({ type: 'mark', context: name, at: Date.now(), ...event }));
  presence = createPresence({
    locks, bus, name, kind: 'worker', parent: new URLSearchParams(self.location.search).get('parent'),
    implementation, sources: [() => book.active()],
  });
  self.postMessage({ type: 'ready', name, facts: describe() });
  presence.announce();
  for (const message of early.splice(0)) command(message);
} catch (error) {
  self.postMessage({ type: 'failed', error: { name: error.name, message: error.message } });
}
