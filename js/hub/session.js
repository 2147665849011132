// What the hub keeps of one client (the spec's agent) whatever port it speaks on: its engine
// client, identity, tokens, doorbell and workers. A context that resumes on a new port (resume.js)
// takes its session over whole; the connection keeps what belongs to the port (its inbox charge,
// liveness, sentinel, alive database, observers: the context asks for those again on the new port).
/** @import { HubConnection } from './connection.js' */

export class Session {
  constructor() {
    this.client = null;       // engine client handle, once registered
    this.clientId = null;
    this.key = null;          // the context's secret (hello): lets it resume this session over a new port
    this.tokens = new Map();  // token -> { id, state, entry }
    this.tokenOfId = new Map(); // engine id -> token
    this.maxToken = 0;
    this.attempt = 0;         // its latest hello's number (hub-link.js sayHello): a lower one's port was left before
    /** @type {Int32Array | null} the engine memory's view holding its doorbell */
    this.bell = null;
    this.bellIndex = 0;
    this.seenBell = 0;
    this.unsentOrder = [];    // tokens that queued since the last batch of queue order (H.queued)
    /** @type {Set<HubConnection>} the dedicated workers it created (adopt), and its frames */
    this.children = new Set();
    /** @type {Map<string, HubConnection> | null} the frames it speaks for (`as`), by clientId */
    this.frames = null;
    // A machine hub's (js/machine/machine-hub.js): its number in the journal, its key's hash, its thread.
    /** @type {number | undefined} */
    this.no = undefined;
    /** @type {string | undefined} */
    this.keyHash = undefined;
    /** @type {import('./protocol.js').Proc | undefined} */
    this.proc = undefined;
    this.lease = 0;           // ms its locks outlive its thread (hello `lease`), 0 if none
    /** @type {number | undefined} while kept for an adopter: when its lease runs out (hub.now()) */
    this.leaseUntil = undefined;
  }
}
