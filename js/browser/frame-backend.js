// Same-origin frames of one page share one connection to the hub: their embedder's. Each frame's
// port would be a channel of its own, and no engine delivers several ports' messages in the order
// they were posted (WebKit delivered each port's together), so the hub heard the requests that
// frames made in one task out of the order they were made (spec 3.2.2: a request joins its queue
// when request() runs; WPT query-ordering). Frames of one origin in one page share their
// embedder's event loop, so calls made through the embedder's backend keep their order on its one
// port. Each frame stays a client of its own (its clientId, locks, workers): the hub keeps it as
// one (js/hub/frame-connection.js); it leaves on pagehide (removed, navigated), or when its
// Document is found without a window (hub-backend.js checkFrames).
//
// Only the default lock space, only frames whose every ancestor up to the embedder is of the same
// origin (a frame below a cross-site one is partitioned apart: another lock space), and only an
// embedder of the same protocol, frame API and hub script.
import { PROTOCOL_VERSION } from '../hub/protocol.js';
import { randomUuid } from '../api/random-id.js';

// A registered symbol is the same in every realm of the agent.
const SERVES_FRAMES = Symbol.for('weblocks-wasm.serves-frames');
// Bumped when the calls below change: frames join only an embedder of the same version.
const FRAME_API = 1;

/** This window's backend serves the same-origin frames below it (the default lock space). */
export function serveFrames(scope, hubUrl, backend) {
  try {
    Object.defineProperty(scope, SERVES_FRAMES, {
      value: Object.freeze({ api: FRAME_API, protocol: PROTOCOL_VERSION, hubUrl, backend }), configurable: true,
    });
  } catch { /* a frozen global: frames connect on their own */ }
}

/** The backend of the nearest same-origin ancestor window that serves frames with hub `hubUrl`, or null. */
export function embedderOf(scope, hubUrl) {
  let below = scope;
  for (let depth = 0; depth < 64; depth++) {
    let above;
    let served;
    try {
      above = below.parent;
      if (above === below || above === null || above === undefined) return null;
      // A cross-origin ancestor throws here (or differs): the walk stops at it.
      if (above.origin !== scope.origin) return null;
      served = Object.getOwnPropertyDescriptor(above, SERVES_FRAMES)?.value;
    } catch {
      return null;
    }
    if (served !== undefined && served.api === FRAME_API && served.protocol === PROTOCOL_VERSION && served.hubUrl === hubUrl) return served.backend;
    below = above;
  }
  return null;
}

/**
 * A frame's backend: the backend contract (js/api/lock-manager.js) over its embedder's HubBackend,
 * each call naming this frame. What comes back is made again in this frame's realm: promises,
 * errors and arrays of the embedder's realm would fail the frame's own instanceof checks.
 */
export class FrameBackend {
  constructor(embedder, scope) {
    this.embedder = embedder;
    this.scope = scope;
    this.clientId = randomUuid();
    this.failure = null;
    embedder.joinFrame(this.clientId, scope.document);
  }

  // What worker-ports.js reads of a backend: whether the connection is up (the embedder's).
  get port() { return this.embedder.port; }
  get hubId() { return this.embedder.hubId; }

  request(name, mode, wait, listener, within) {
    return this.embedder.request(name, mode, wait, {
      granted: (token, grant) => listener.granted(token, grant),
      notAvailable: (token) => listener.notAvailable(token),
      stolen: (token, message) => listener.stolen(token, message),
      failed: (token, error) => listener.failed(token, inThisRealm(error)),
    }, within, this.clientId);
  }

  release(token) {
    return this.embedder.release(token);
  }

  abort(token) {
    return this.embedder.abort(token);
  }

  query() {
    return new Promise((resolve, reject) => {
      this.embedder.query().then(
        (state) => resolve({ held: Array.from(state.held), pending: Array.from(state.pending) }),
        (error) => reject(inThisRealm(error)));
    });
  }

  observeSource() {
    const source = this.embedder.observeSource();
    return {
      observe: (sink) => source.observe({
        start: (snapshot) => sink.start(structuredClone(snapshot)),
        changes: (records, snapshot) => sink.changes(structuredClone(records), structuredClone(snapshot)),
      }),
    };
  }

  adopt(port, worker) {
    return this.embedder.adopt(port, worker, this.clientId);
  }

  workerEnded(worker) {
    this.embedder.workerEnded(worker, this.clientId);
  }

  /** Spec: a request from a Document that is not fully active rejects (lock-manager.js). */
  isFullyActive() {
    return this.scope.document?.defaultView !== null;
  }

  /** pagehide: a frame leaving (not into the back/forward cache, where its embedder goes too). */
  pageHidden(persisted) {
    if (!persisted) this.embedder.frameLeft(this.clientId);
  }

  pageShown() {}
}

/** An error of the embedder's realm, as this realm's (the LockManager checks instanceof). */
function inThisRealm(error) {
  if (error instanceof Error || error instanceof DOMException) return error;
  if (error !== null && typeof error === 'object' && typeof error.name === 'string') {
    const Native = { TypeError, RangeError, Error }[error.name];
    return Native !== undefined ? new Native(String(error.message ?? '')) : new DOMException(String(error.message ?? ''), error.name);
  }
  return error;
}
