// One connection of the hub: a context's port (a window, a worker, a machine client) and what the
// hub keeps for it. Its frames (frame-connection.js) are connections without a port of their own.
/** @import { HubMessage, UnbatchedHubMessage } from './protocol.js' */
/** @import { EngineObserver } from '../api/engine-observer.js' */

export class Connection {
  constructor(hub, port, parent) {
    this.hub = hub;
    this.port = port;
    this.parent = parent;     // the connection of the context that created this dedicated worker (adopt)
    this.workerNo = 0;        // its number among the workers its parent created
    this.ended = false;       // its parent terminated it (C.ended) or left: no longer vouched for (vouchedFor)
    this.stoppedBy = Infinity; // once ended: when it has surely stopped running (gone then, unless its sentinel answers)
    this.children = new Set();
    this.client = null;       // engine client handle, once registered
    this.clientId = null;
    this.key = null;          // the context's secret (hello): lets it resume this connection over a new port
    this.bytes = 0;           // charged to this connection (quota.js)
    this.queries = 0;         // queries waiting to be answered
    this.helloQueued = 0;     // hellos filed in the inbox, not handled yet
    this.tokens = new Map();  // token -> { id, state, entry }
    this.tokenOfId = new Map(); // engine id -> token
    this.maxToken = 0;
    /** @type {Int32Array | null} the engine memory's view holding its doorbell */
    this.bell = null;
    this.bellIndex = 0;
    this.seenBell = 0;
    this.lastSeen = hub.now();
    this.dead = false;        // declared dead (or said bye): may register again with a new hello
    this.gone = false;        // port closed: forgotten for good
    this.rejections = 0;
    this.cut = false;         // its port was closed for volume (cut): registered still, its locks kept
    this.unsentOrder = [];    // tokens that queued since the last batch of queue order (H.queued)
    this.sentinel = null;     // the context's sentinel port (sentinels.js), once it sent one
    this.alive = null;        // the alive database the hub is deleting (alive.js), once the context named one
    this.toldUnregistered = false;
    this.batching = false;    // its hello asked for batches (batch: true): Hub.sendTo
    /** @type {Map<string, Connection> | null} the frames this connection speaks for (`as`), by clientId */
    this.frames = null;
  }

  /** @param {UnbatchedHubMessage} message */
  send(message) {
    this.hub.sendTo(this, message);
  }

  /** Posts the messages gathered for a batch (Hub.sendTo) now: what is posted next comes after them. */
  flush() {
    this.hub.flushRun();
  }

  /** Posts `message` at once, unbatched; throws what postMessage throws (a query's answer says so). @param {HubMessage} message */
  postNow(message) {
    this.port.postMessage(message);
  }

  /** @param {HubMessage} message */
  post(message) {
    try {
      this.port.postMessage(message);
    } catch (error) {
      this.hub.log('warn', `could not post to ${this.clientId ?? 'an unregistered client'}: ${error?.message}`);
    }
  }
}

/**
 * A connection, with the fields set on it later: its observers (observe), the liveness tick's
 * lastPing and toldUnwatched, and what a machine hub (js/machine/machine-hub.js) keeps of its
 * client (keyHash, proc, its number `no`); a frame's connection (frame-connection.js) says `frame`.
 * @typedef {Connection & { frame?: boolean, observers?: Map<number, EngineObserver>, lastPing?: number, toldUnwatched?: boolean,
 *   keyHash?: string, proc?: import('./protocol.js').Proc, no?: number }} HubConnection
 */

