// Dedicated workers have no SharedWorker constructor: the context that creates one hands it a port
// to the hub. No message of ours may reach app code in either direction, so each side must know
// the other runs the polyfill before it posts anything:
//   - The only thing a creator can give a worker at construction that the worker reads without
//     asking is its name (`new Worker(url, { name })`, `self.name`). The patched `Worker` appends
//     NAME_MARK to it: "my creator answers port requests". The polyfill in the worker strips it
//     again (self.name reads as the app gave it) and only then asks, with a marked message the
//     creator's listener (registered in the constructor, before app code's) takes out.
//   - A worker without the mark was created by a context without the polyfill: it never asks (the
//     message would land in the creator's app code) and fails loudly instead (context.js).
//   - The creator never posts first: a worker that does not load the polyfill never asks, and sees
//     nothing but the mark on its name.
// docs/browser.md, "Dedicated workers", weighs the alternatives.
import { markerOf, markerMessage } from '../hub/protocol.js';

// Set by worker-patch.js prepareContext(), which every browser entry runs first (synchronously,
// even where this file loads later): the Worker patch's state, the creator's mark, the inbox.
const PATCH = Symbol.for('weblocks-wasm.worker-patch');
const MARK = Symbol.for('weblocks-wasm.creator-mark');
const INBOX = Symbol.for('weblocks-wasm.parent-inbox');

/** Storage bucket names (the Storage Buckets API's rule): a lock space other than the default. */
export function isBucketName(name) {
  return typeof name === 'string' && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(name);
}

/**
 * In a context that creates workers: answer their port requests through `backendFor(space)` (the
 * HubBackend of the default lock space, space null, or of a storage bucket's). The constructor
 * itself is patched by worker-patch.js (maybe earlier, by the loader): the requests its workers
 * made meanwhile are answered now, in the order they came.
 */
export function patchWorkerConstructor(scope, backendFor, outstanding = null) {
  const patch = typeof scope.Worker === 'function' ? scope.Worker[PATCH] : undefined;
  if (patch === undefined || patch.handle !== null) return;
  // Per worker: its number in this context (in the order they first asked), the backends (lock
  // spaces) that adopted it, and whether it was terminated.
  let workers = 0;
  const adoptions = new WeakMap();
  const adoptionOf = (worker) => {
    if (!adoptions.has(worker)) adoptions.set(worker, { number: ++workers, backends: new Set(), ended: false });
    return adoptions.get(worker);
  };
  function answer(event) {
    const adopted = adoptionOf(event.target);
    // A worker of ours now has (or no longer has) locks held or waited for (bfcache.js).
    if (markerOf(event.data) === 'outstanding') {
      if (!adopted.ended) outstanding?.set(event.target, event.data.busy === true);
      return;
    }
    if (markerOf(event.data) !== 'need-port') return;
    const space = event.data.space ?? null;
    if (space !== null && !isBucketName(space)) return;
    if (adopted.ended) return; // terminated: it may run on a moment, but gets no new port
    const backend = backendFor(space);
    // Asked ahead of the worker's first request: answered only while this context is connected
    // (a page that never takes a lock does not start the hub because it created a worker).
    if (event.data.early === true && (backend.port === null || backend.hubId === null)) {
      event.target.postMessage(markerMessage('no-port'));
      return;
    }
    const channel = new MessageChannel();
    adopted.backends.add(backend);
    backend.adopt(channel.port1, adopted.number);
    event.target.postMessage(markerMessage('port'), [channel.port2]);
  }
  /**
   * The creator vouches at the hub for a worker of its own that has no sentinel (a silent one is
   * busy, not gone: js/hub/liveness-judge.js vouchedFor); once it terminated the worker it stops vouching,
   * and the heartbeat decides when the worker's locks go (a busy worker may run on a while after
   * terminate(): the hub must not grant its lock while it still runs).
   */
  const ended = (worker) => {
    const adopted = adoptionOf(worker);
    if (adopted.ended && adopted.backends.size === 0) return;
    adopted.ended = true;
    outstanding?.set(worker, false);
    for (const backend of adopted.backends) backend.workerEnded(adopted.number);
    adopted.backends.clear();
  };
  // What happened before the rest loaded (events, and the workers terminated: an EventTarget, no
  // `target`; a patch of another version drops a terminated worker's events itself), then what
  // happens. A worker terminated meanwhile gets no port: what it asked is dropped, what it said
  // forgotten.
  const queued = patch.queue.splice(0);
  for (const thing of queued) if (!('target' in thing)) adoptionOf(thing).ended = true;
  for (const thing of queued) if ('target' in thing) answer(thing);
  patch.handle = answer;
  patch.ended = ended;
}

/** In a dedicated worker: did the creating context load the polyfill (the mark on self.name, taken off by worker-patch.js)? */
export function takeCreatorMark(scope) {
  return scope[MARK] === true;
}

let portWaiters = [];

/** In a dedicated worker: listen (before app code does) for the ports the creator sends. */
export function listenForParentPorts(scope) {
  const inbox = scope[INBOX];
  if (inbox === undefined || inbox.handle !== null) return;
  inbox.handle = (marker, event) => {
    const resolve = portWaiters.shift();
    if (resolve !== undefined) resolve(marker === 'port' && event.ports.length === 1 ? event.ports[0] : null);
  };
}

// A port to the hub asked for as the worker starts (askEarly): its first request then goes to the
// hub at once, with no round trip through the creator, so it keeps its place in the queues ahead
// of requests other contexts make after it (spec 3.2.2: enqueued when request() runs). Used only
// while younger than EARLY_PORT_MAX_AGE: the hub forgets a port that never said hello after
// 20 x DEAD_AFTER (30 s).
const EARLY_PORT_MAX_AGE = 10_000;
let early = null; // { port: Promise<MessagePort | null>, at, arrived: MessagePort | null }

/** In a dedicated worker that will talk to the default lock space: ask the creator for a port now. */
export function askEarly(scope) {
  if (early !== null) return;
  const asked = { port: null, at: Date.now(), arrived: null };
  asked.port = askCreator(scope, { ...markerMessage('need-port'), early: true }).then((port) => { asked.arrived = port; return port; });
  early = asked;
}

/**
 * A window's port to the hub, made before its first request (context.js): kept as a worker's early
 * port. What the hub says on it meanwhile (its greeting, once it runs) is kept for HubBackend.attach.
 */
export function keepEarlyPort(port) {
  const heard = [];
  port.onmessage = (event) => heard.push(event);
  early = { port: Promise.resolve(port), at: Date.now(), arrived: port, heard };
}

/**
 * The early port, if it has arrived and is fresh: { port, heard (what the hub said on it so far) },
 * taken now, so that the first request is posted within request() itself, before anything the
 * context does after it (HubBackend.open).
 */
export function earlyPortNow() {
  if (early === null || early.arrived === null || Date.now() - early.at >= EARLY_PORT_MAX_AGE) return null;
  const { arrived: port, heard = [] } = early;
  early = null;
  return { port, heard };
}

/**
 * Asks the creating context (which carries the polyfill: takeCreatorMark said so) for a port to
 * the hub. It always answers (with a refusal on the port when its own hub failed), so there is no
 * timeout: a busy creator answers late, and a creator that is gone took this worker with it.
 */
export async function portFromParent(scope, space = null, { early: useEarly = false } = {}) {
  if (useEarly && early !== null) {
    const { port, at } = early;
    early = null;
    const got = await port;
    if (got !== null && Date.now() - at < EARLY_PORT_MAX_AGE) return got;
    got?.close();
  }
  const port = await askCreator(scope, space === null ? markerMessage('need-port') : { ...markerMessage('need-port'), space });
  if (port === null) throw new DOMException('Web Locks: the creating context refused this worker a port to the lock hub.', 'InvalidStateError');
  return port;
}

function askCreator(scope, message) {
  return new Promise((resolve) => {
    portWaiters.push(resolve);
    // The creator answers in the order asked: the first waiter gets the first answer.
    scope.postMessage(message);
  });
}
