// The remote lock protocol (docs/remote.md, "Protocol"): JSON text frames over one WebSocket.
// Shared by the client (js/remote) and the server (js/server); pure ECMAScript, no host APIs.
//
// The first frame of a connection is the client's hello (a new session, or the resume of one);
// the server answers welcome. Every later frame carries `s` (its sequence number on this session,
// counting from 1 per direction) and `a` (the last sequence number received from the other side):
// after a reconnection each side sends again what the other has not acknowledged, and drops what
// it already received, so a frame is acted on once whichever connection carried it.

export const PROTOCOL_VERSION = 1;

/** Client -> server frame types. */
export const C = Object.freeze({
  hello: 'hello',     // { v, resume?: { session, secret, received } }
  request: 'req',     // { id, name, mode, wait: 'wait' | 'no-wait' | 'preempt', under?, reject? }: under, the id of
                      //   the held lock in whose callback it was made (deadlock detection); reject: a request that
                      //   would close a certain deadlock rejects (OperationError) instead of waiting
  release: 'rel',     // { id }
  abort: 'abort',     // { id }
  query: 'query',     // { id }
  observe: 'obs',     // { id }: start observing this space
  unobserve: 'unobs', // { id }
  ack: 'ack',         // {}: only `a` matters
  freezing: 'frz',    // {}: not sequenced; the page is being frozen (its freeze event): if this connection
                      // then closes, the session waits for its grace instead of ending (Chromium closes a
                      // frozen page's socket as it thaws it)
});

/** Server -> client frame types. */
export const S = Object.freeze({
  welcome: 'welcome', // { session, secret, clientId, received, resumed }
  granted: 'granted', // { id, fence }
  notAvailable: 'na', // { id }
  lost: 'lost',       // { id, why }: the held lock was taken away (a steal, the grace ran out)
  failed: 'failed',   // { id, name, message }: the request was refused (the error's name)
  aborted: 'aborted', // { id, removed }
  released: 'released', // { id, held }: held false: it was no longer held when the release came
  snapshot: 'snap',   // { id, held, pending }
  observeStart: 'ostart',     // { id, snapshot }
  observeChanges: 'ochanges', // { id, records, snapshot }
  ack: 'ack',         // {}
});

/**
 * WebSocket close codes of this protocol (4000-4999 are the application's). 1009 (message too
 * big) is the WebSocket's own, sent for a frame over the server's `maxFrameBytes`.
 */
export const CLOSE = Object.freeze({
  malformed: 4000,        // a frame that is not this protocol (bad JSON, unknown type, bad fields)
  nameTooLong: 4001,      // a lock name longer than the server's maxNameLength
  tooManyRequests: 4002,  // an observer over the server's maxOutstanding (requests and queries over it get `failed` QuotaExceededError)
  tooManyConnections: 4003, // the space already has maxConnectionsPerSpace connections
  sessionGone: 4004,      // resume of a session the server no longer has (grace ran out, or never had)
  notReading: 4005,       // the client left too many frames unacknowledged
  serverClosing: 1001,    // the lock server is closing (going away)
  serverError: 1011,      // the lock server could not start a session (its backend refused: see the server's warnings)
  clientClosing: 1000,    // the client's close(): its locks are released at once
});

/** The HTTP headers lockHeaders() writes and fence() reads (lower case, as Node gives them). */
export const HEADERS = Object.freeze({
  name: 'weblocks-lock',              // the lock's name, encodeURIComponent'ed
  mode: 'weblocks-lock-mode',         // 'exclusive' | 'shared'
  fencingToken: 'weblocks-fencing-token', // decimal integer
});

/** Send an explicit ack after this many frames received without sending anything. */
export const ACK_EVERY = 32;
