// One connection of the hub: a context's port (a window, a worker, a machine client) and what the
// hub keeps for it. Its frames (frame-connection.js) are connections without a port of their own.
import { Session } from './session.js';
/** @import { HubMessage, UnbatchedHubMessage } from './protocol.js' */
/** @import { EngineObserver } from '../api/engine-observer.js' */

export class Connection {
  constructor(hub, port, parent) {
    this.hub = hub;
    this.port = port;
    this.session = new Session(); // its client's state: a resume on a new port takes it over whole
    this.parent = parent;     // the connection of the context that created this dedicated worker (adopt)
    this.workerNo = 0;        // its number among the workers its parent created
    this.ended = false;       // its parent terminated it (C.ended) or left: no longer vouched for (vouchedFor)
    this.stoppedBy = Infinity; // once ended: when it has surely stopped running (gone then, unless its sentinel answers)
    this.bytes = 0;           // charged to this connection (quota.js)
    this.queries = 0;         // queries waiting to be answered
    this.helloQueued = 0;     // hellos filed in the inbox, not handled yet
    this.lastSeen = hub.now();
    this.dead = false;        // declared dead (or said bye): may register again with a new hello
    this.gone = false;        // port closed: forgotten for good
    this.rejections = 0;
    this.cut = false;         // its port was closed for volume (cut): registered still, its locks kept
    this.sentinel = null;     // the context's sentinel port (sentinels.js), once it sent one
    this.alive = null;        // the alive database the hub is deleting (alive.js), once the context named one
    this.toldUnregistered = false;
    this.batching = false;    // its hello asked for batches (batch: true): Hub.sendTo
  }

  // The session's fields every message reads, as accessors of their own (those made in a loop
  // below share one inline cache, several times slower per read).
  get client() { return this.session.client; }
  set client(value) { this.session.client = value; }
  get tokens() { return this.session.tokens; }
  set tokens(value) { this.session.tokens = value; }

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
      this.hub.log('warn', `could not post to ${this.session.clientId ?? 'an unregistered client'}: ${error?.message}`);
    }
  }
}

// The session's other fields, read and written through the connection that speaks for it now.
for (const field of Object.keys(new Session())) {
  if (field in Connection.prototype) continue;
  Object.defineProperty(Connection.prototype, field, {
    get() { return this.session[field]; },
    set(value) { this.session[field] = value; },
  });
}

/**
 * A connection, with the fields set on it later: its observers (observe), the liveness tick's
 * lastPing and toldUnwatched, and what a machine hub (js/machine/machine-hub.js) keeps of its
 * client (keyHash, proc, its number `no`: in its session); a frame's connection (frame-connection.js) says `frame`.
 * @typedef {Connection & Session & { frame?: boolean, observers?: Map<number, EngineObserver>, lastPing?: number, toldUnwatched?: boolean }} HubConnection
 */


/**
 * How a connection ends (Hub.end, the one way): `bye` and `dead` end its session (the spec's agent
 * termination) and keep the port, `gone` and `left` end both, `moved` ends only the old port of a
 * session that went on on a new one (resume.js).
 * @typedef {'bye' | 'dead' | 'gone' | 'left' | 'moved'} Ending
 */
/** @type {{ [K in Ending]: K }} */
export const ENDING = Object.freeze({ bye: 'bye', dead: 'dead', gone: 'gone', left: 'left', moved: 'moved' });
