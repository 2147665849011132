// The hub protocol: every message between a context and the hub, declared once and used by both
// sides. A message is a plain object whose `t` names its type; each type has one shape, checked by
// its validator on receipt. The hub trusts nothing a port sends: a message that fails validation is
// rejected and logged (never thrown into the hub's loop), and every token a message names is looked
// up in the sending connection's own table, so a client can only touch its own requests and locks.

/**
 * Bumped on any incompatible change. Both sides check it in the handshake. 5: hubs keep a
 * succession record (succession.js); a hub that finds none takes itself for the origin's first, so
 * it must never serve the survivors of a hub that kept none (those speak 4 and are refused).
 * 6: flow control (FLOW, C.sync / H.synced); a connection that fills its inbox anyway is told
 * (H.overloaded) and no longer read, never its locks released.
 * Also 6: a machine hub (js/machine/) learns each client's process from its hello (`proc`),
 * confirms every release (`released`) and gives a fencing token with every grant.
 * 7: observers (C.observe, H.changes) and deadlocks (C.request's `under` and `reject`, H.deadlock).
 * 8: alive databases (C.alive, js/hub/alive.js): a window names the IndexedDB database it holds open.
 * 9: a hello carries the messages its context sends right after it (`then`: its first requests),
 * handled in the hello's turn, and may ask for batches (`batch: true`): what the hub sends it in one
 * task comes as one H.batch. A page reads each message in a task of its own, between the tasks of
 * its own load, so its first grant came two or three tasks after its request (hub-transport.js sendTo). A
 * hub of version 8 refuses such a hello with its own version, which the context names (hub-backend.js).
 * 10: a hello's reclaim entry may be an ifAvailable request whose answer was lost with the hub
 * (`wait: 'no-wait'`, never held): the new hub answers it, after the reclaim window (before, the
 * context answered "not available" itself, even for a free lock).
 * 11: same-origin frames of one page share their embedder's connection (js/browser/frame-backend.js):
 * a request, release, abort, adopt or ended may name the frame it is for (`as`: the frame's
 * clientId), the hub keeps each frame as a client of its own (hub-transport.js frameOf), and C.left ends one.
 * One port keeps the order in which the frames made their calls (spec 3.2.2): no engine delivers
 * several ports' messages in the order they were posted (docs/browser.md, "Order across frames").
 * 12: a query answer's piece (H.snapshot) carries its LockInfos as columns (LockInfoColumns,
 * js/hub/snapshot-pieces.js), not as objects: a page of version 11 could not read them.
 */
export const PROTOCOL_VERSION = 12;

/** The SharedWorker's name. Together with the hub script's URL it selects the hub: keep both stable. */
export const HUB_NAME = 'weblocks-wasm-hub';

/** Marks this project's messages on ports it shares with app code (worker <-> creating context). */
export const PORT_MARKER = '__weblocksWasmHubPort';

// Limits that keep one client from exhausting the hub (a message beyond them is rejected).
const CONNECTION_BYTES = 32 << 20;
const REQUEST_OVERHEAD = 256;
export const LIMITS = Object.freeze({
  nameLength: 65536,          // UTF-16 code units in a lock name
  clientIdLength: 256,
  tokensPerClient: 1 << 20,   // requests a client may have outstanding at once
  framesPerConnection: 256,   // frames one connection may speak for (C.request `as`), each a client of its own
  // Locks + requests one hello may re-register: as many as one connection's memory share can hold,
  // so whatever a hub accepted from a context fits the hello that takes it to the next hub.
  reclaimEntries: Math.floor(CONNECTION_BYTES / REQUEST_OVERHEAD),
  // Memory (js/hub/quota.js): what one connection may make the hub keep, and the hub as a whole.
  // A request is charged requestOverhead + 4 bytes per name unit (the name is kept twice: the
  // request's record and the engine's entry).
  connectionBytes: CONNECTION_BYTES,
  hubBytes: 64 << 20,
  requestOverhead: REQUEST_OVERHEAD,
  queriesPerClient: 4,        // queries a client may have waiting at the hub at once
  helloThen: 32,              // messages a hello may carry (C.hello `then`), handled in its turn
  survivors: 10_000,          // survivors of a lost hub a new hub waits for (reclaim-window.js survivorAlive)
  // query() answers (js/hub/snapshot-pieces.js): pieces of at most this many bytes; a state larger
  // than queryBytes is refused; a query with no piece for queryTimeout ms rejects (TimeoutError).
  snapshotPieceBytes: 1 << 20,
  queryBytes: 256 << 20,
  queryTimeout: 10_000,
});

// Flow control (js/browser/flow.js): a context never has more than WINDOW messages that the hub
// may not have handled yet; every SYNC_EVERY of them it sends C.sync, which the hub answers
// (H.synced) once it handled every message the context sent before it. The rest wait in the
// context, in order. The hub's bound on one connection's waiting messages (fair-inbox.js
// maxQueued) is well above WINDOW: only a port that ignores flow control reaches it.
export const FLOW = Object.freeze({
  WINDOW: 1024,
  SYNC_EVERY: 256,
  MAX_QUEUED: 5_000,
});

// Liveness (milliseconds). The hub pings a connection it has not heard from for PING_AFTER; a
// connection silent for DEAD_AFTER is declared dead. Each tick of the hub's timer runs every TICK.
// Detection bound: DEAD_AFTER + TICK. Clients suspect hub loss after HUB_SILENT_AFTER without a
// message and confirm it when a probe gets no answer within PROBE_TIMEOUT.
export const LIVENESS = Object.freeze({
  TICK: 250,
  PING_AFTER: 400,
  DEAD_AFTER: 1500,
  HUB_SILENT_AFTER: 1500,
  PROBE_TIMEOUT: 1000,
  CLIENT_CHECK_EVERY: 250,
  RECLAIM_WINDOW: 2500,
  STARTUP_HOLD: 100,
  // A new hub waits this long at most for the list of held markers (held-markers.js), its reclaim
  // window open meanwhile: past it, busy survivors with no sentinel are not waited for. Long, since
  // giving up costs exclusion and waiting only a slow storage's time (2 s until 2026-12-02; measured
  // 6-10 ms under four CPU hogs in Chromium and Firefox).
  MARKERS_LISTED_WITHIN: 10_000,
  // The queue order of waiting requests (for re-registration after a hub loss) is sent in batches,
  // this long after the first request of a batch queued: a request granted sooner costs no message.
  QUEUE_ORDER_BATCH: 50,
  // A context's sentinel (sentinels.js) alerts it after this long without a ping from the hub; the
  // context then checks which hub serves the origin (a fresh connection's H.hub greeting) and
  // decides a loss by that identity, not by a timeout. An identity check that gets no greeting
  // at all within IDENTITY_TIMEOUT falls back to the probe's verdict.
  SENTINEL_ALARM_AFTER: 1000,
  // After a hub loss, the sentinel of a context that held or waited under it says so on the hub's
  // channel this often until its context has re-registered (a busy context cannot); the new hub
  // keeps its reclaim window open while such a survivor was heard within SURVIVOR_SILENT_AFTER.
  SURVIVOR_SAY_EVERY: 250,
  SURVIVOR_SILENT_AFTER: 2500,
  // A context starts its sentinel once its first request is answered, or this long after the
  // hub's welcome when none has been (js/browser/context-liveness.js sendSentinelSoon).
  SENTINEL_START_LATEST: 50,
  // The hub's echo to itself (hearing.js): unanswered for this long, the hub is deaf (it hears no
  // one, so no one's silence counts).
  ECHO_LATE: 100,
  IDENTITY_TIMEOUT: 5000,
  // A window's first hello went on the port it made as it loaded, to a hub that greeted that port
  // then (js/browser/hub-link.js attach): unanswered this long, the context asks which hub serves
  // the origin now (a fresh connection's greeting), as above. A hub that ran answers in
  // milliseconds; one that died since (the tab it ran in crashed) never does.
  EARLY_HUB_ANSWER_WAIT: 150,
  // A context's alive database was closed by the browser (js/hub/alive.js) and the hub cannot tell
  // that the origin's storage was not cleared: the hub pings the context and its sentinel this
  // often, and releases the context's locks once neither has said anything for ALIVE_SILENT_AFTER
  // (a live sentinel of a loaded machine answered later than 100 ms: Firefox, 2026-12-02). An answer means the
  // context lives (the browser closed the connection for another reason): it is asked again,
  // ALIVE_CONFIRM_ROUNDS times in all (a WebKit window's sentinel, a shared worker, outlives a
  // crashed window by tens of milliseconds), then keeps its locks.
  ALIVE_CONFIRM_WAIT: 100,
  ALIVE_SILENT_AFTER: 1000,
  ALIVE_CONFIRM_ROUNDS: 2,
  // A dedicated worker that was terminated (its creator's terminate(), or its creator left) has
  // stopped running this long after (js/hub/terminated-worker.js): its creator says C.ended only
  // then, and the hub gives a worker whose creator left this long. Chromium runs a busy one on 2 s.
  TERMINATED_RUNS_ON: 2500,
  TERMINATED_RUNS_ON_GECKO: 250,
});

/**
 * When to try again an IndexedDB open or write the browser refused (site data being cleared: it
 * refuses for a while after it closed our connections): after 100, 200, 400... ms, 8 times (about
 * 25 s in all), then null (give up). `attempt` counts the tries already made again, from 0. Used by
 * the hub's succession record and a window's alive database alike.
 */
export function storageRetryDelay(attempt) {
  return attempt < 8 ? 100 << attempt : null;
}

/** The name of every alive database (js/browser/alive-database.js): the prefix, then a random id. */
export const ALIVE_PREFIX = 'weblocks-alive:';

/**
 * A context's held marker (js/browser/held-marker.js): an IndexedDB database it holds open while
 * it holds or waits under hub `hubId` and has no sentinel to speak for it. Named
 * `weblocks-held:<hubId> <random id>`.
 */
export const HELD_PREFIX = 'weblocks-held:';
export const heldMarkerName = (hubId, id) => `${HELD_PREFIX}${hubId} ${id}`;
/** The hub id in a held marker's name, or null for any other name. */
export function heldMarkerHub(name) {
  if (typeof name !== 'string' || !name.startsWith(HELD_PREFIX)) return null;
  const [hubId, id] = name.slice(HELD_PREFIX.length).split(' ');
  return id === undefined ? null : hubId;
}

// Announcements on a BroadcastChannel named HUB_NAME (same origin and partition as the hub):
// a fresh hub says { t: 'hub-started', hubId }; a context that holds or waits under another hub
// answers { t: 'had-hub', hubId } and checks its own hub at once. A fresh hub holds grants back for
// STARTUP_HOLD ms to hear such answers: it may be the successor of a hub that just died. A
// context's sentinel answers for it, busy or not, { t: 'had-hub', hubId, clientId }: once as the
// new hub announces itself, then, once its hub is silent, every SURVIVOR_SAY_EVERY until the
// context has re-registered (js/browser/sentinel-worker.js).
// The hub also says what it decided about a context that did not say bye: { t: 'liveness-verdict',
// clientId, cause, dead, confirmedBy? } (cause: 'heartbeat', 'alive-database-closed', 'terminated': a
// dedicated worker without a sentinel, past terminatedWorkerRunsOn after its end; dead: false when
// an alive database closed but the context or its sentinel answered; confirmedBy, for an alive
// database: 'storage' when the origin's storage was not cleared, 'silence' when no answer came:
// js/hub/alive.js). Contexts ignore it; it is for diagnostics and tests.
export const ANNOUNCE = Object.freeze({ started: 'hub-started', hadHub: 'had-hub', verdict: 'liveness-verdict' });

// ---- message types ----
// context -> hub
// (Each constant is its own value, and names exactly one message typedef below: `@satisfies` checks both.)
export const C = Object.freeze(/** @satisfies {{ [K in ContextMessage['t']]: K }} */ ({
  hello: 'hello',       // { t, v, clientId, key, lostHub: string|null, reclaim: ReclaimEntry[], attempt?, proc?, batch?, then?, lease?, adopt? }
                        //   (lease, adopt: machine hubs only, js/machine/machine-hub.js "Leases")
                        //   batch: true: send this context H.batch messages; then: the messages it sends right after
                        //   its hello (no hello, no ports), handled in the hello's turn if it is welcomed
                        //   proc (machine clients): { pid, tid, start }: the client's process and kernel thread
                        //   (tid 0, start null where there is no /proc), by which a machine hub knows it lives
                        //   key: a secret of the context (never shown to others): a hello on a new port
                        //   with the key of a live connection resumes that connection (its locks kept)
                        //   attempt: the context's count of hellos (1, 2, ...): a hello of a lower count than the
                        //   one its connection was made by comes from a port it has left, and is not taken
                        //   (a hub deaf for a while reads several ports' hellos at once, in any order)
                        //   ReclaimEntry: { token, name, mode, held, seq: number|null, wait?: 'no-wait' }: a lock
                        //   it held, or a request it waits for (wait: an ifAvailable one whose answer was lost)
  request: 'request',   // { t, token, name, mode, wait, under?, reject?, as? }: under: the token of this context's held lock
                        //   inside whose callback it was made; reject: refuse it (failed, OperationError) if it would
                        //   close a certain deadlock; as: the clientId of the same-origin frame it was made in, whose
                        //   calls go on this connection (tokens stay the connection's: one counter for all its frames)
  observe: 'observe',   // { t, call }: observeLocks: answered by changes (start: true first), until unobserve
  unobserve: 'unobserve', // { t, call }
  release: 'release',   // { t, token, as? }
  abort: 'abort',       // { t, token, as? }
  left: 'left',         // { t, as }: that frame left (removed, navigated): its locks are released, its requests dropped
  query: 'query',       // { t, call }
  pong: 'pong',         // { t }
  probe: 'probe',       // { t, call }: "are you there?" (answered by probed)
  bye: 'bye',           // { t }: clean exit (pagehide): release everything now
  adopt: 'adopt',       // { t, worker, as? } + a transferred MessagePort: a new connection for the dedicated worker this context
                        //   created, numbered `worker` by this context (a worker may be adopted again: a new hub, a bucket)
  ended: 'ended',       // { t, worker, as? }: this context terminated its dedicated worker number `worker` (terminate())
                        //   long enough ago that it has stopped running (terminated-worker.js): it no longer vouches
                        //   for the worker (liveness-judge.js vouchedFor), which goes unless its sentinel still answers
  sentinel: 'sentinel', // { t } + a transferred MessagePort: the context's sentinel (js/hub/sentinels.js) answers pings for it
  sync: 'sync',         // { t, call }: flow control (FLOW): answered by synced once every message before it is handled
  alive: 'alive',       // { t, name }: this window holds the IndexedDB database `name` (ALIVE_PREFIX + id) open while it
                        //   lives; the hub deletes it, and the delete completes when the browser closes it (js/hub/alive.js)
}));
// hub -> context
export const H = Object.freeze(/** @satisfies {{ [K in HubMessage['t']]: K }} */ ({
  welcome: 'welcome',           // { t, v, hubId, clientId, reclaimed: ('held'|'stolen'|'queued')[], fences? }
                                //   fences (a machine hub's, after a resume): each held entry's fencing token
  rejected: 'rejected',         // { t, v, reason, message }: handshake refused (version mismatch, bad hello)
  granted: 'granted',           // { t, token, fence? }: fence (machine hubs): the lock's fencing token
  released: 'released',         // { t, token }: a machine hub handled this release (sent after any news of its loss)
  queued: 'queued',             // { t, seqs: [token, seq, token, seq, ...] }: requests still waiting, each with its
                                //   place among all clients' (for reclaim); sent in batches (QUEUE_ORDER_BATCH)
  notAvailable: 'notAvailable', // { t, token }
  stolen: 'stolen',             // { t, token }
  failed: 'failed',             // { t, token, name, message }
  aborted: 'aborted',           // { t, token, removed }
  snapshot: 'snapshot',         // { t, call, held, pending, more }: one piece of a query's answer, as columns (more: pieces follow)
  queryFailed: 'queryFailed',   // { t, call, name, message }: the query was refused (QuotaExceededError)
  ping: 'ping',                 // { t }
  probed: 'probed',             // { t, call, hubId }
  hub: 'hub',                   // { t, hubId }: the first message on every connection: which hub serves this port
  unregistered: 'unregistered', // { t, hubId, call }: this hub has no registration for this port: say hello again
                                //   (call: the probe it answers, or 0 for any other message)
  synced: 'synced',             // { t, call }: every message this connection sent before sync `call` is handled
  overloaded: 'overloaded',     // { t, waiting, max, message }: this connection filled its inbox (no flow control): the hub
                                //   stopped reading it; its locks are kept; a hello with its key on a new port resumes it
  dead: 'dead',                 // { t, why? }: this connection was declared dead (why: what the hub did not hear); its locks were released
  changes: 'changes',           // { t, call, start, records, held, pending }: an observer's records (js/engine readJournal) and the
                                //   state right after them (start: the first answer, records empty)
  deadlock: 'deadlock',         // { t, token, cycle }: this waiting request is in a certain deadlock (cycle: its members)
  batch: 'batch',               // { t, m: message[] }: consecutive messages of one task of the hub, in order, to a context
                                //   whose hello said batch: true (hub-transport.js sendTo); never nested
}));

// ---- message shapes ----
// One typedef per message type, each direction a union discriminated on `t`. They cost nothing at
// run time (comments); `npx tsc -p tsconfig.checkjs.json` (scripts/test.sh) checks every place
// that builds a message against them: the senders take a ContextMessage or a HubMessage
// (js/browser/hub-link.js send/toHub, js/browser/flow.js, js/hub/hub-transport.js sendTo, connection.js post,
// js/machine/frames.js encodeFrame), and messages posted on a raw port say `@satisfies`. What
// arrives is still checked by the validators (validate-client.js, isHubMessage): a peer may lie.

/** @typedef {'exclusive' | 'shared'} LockMode */
/** @typedef {'wait' | 'no-wait' | 'preempt'} WaitMode */
/** @typedef {{ name: string, mode: LockMode, clientId: string }} LockInfo (query(), observers) */
/**
 * LockInfos as columns (a query answer's piece, js/hub/snapshot-pieces.js): entry i's name is the
 * next lengths[i] units of `names`; runs: [clientId, mode, count, ...], the entries' clientIds and
 * modes in order.
 * @typedef {{ names: string, lengths: number[], runs: (string | number)[] }} LockInfoColumns
 */
/** @typedef {{ clientId: string, holds: string, waitsFor: string, mode: LockMode }} CycleMember */
/**
 * An observer's record (js/engine readJournal).
 * @typedef {{ type: 'deadlock', rejected: boolean, cycle: CycleMember[] | null }
 *   | { type: 'lost' }
 *   | { type: string, name: string, mode: LockMode, clientId: string }} ChangeRecord
 */
/**
 * A lock the context held or a request it waits for, re-registered by a hello after a hub loss.
 * @typedef {{ token: number, name: string, mode: LockMode, held: boolean, seq: number | null, wait?: 'no-wait', as?: string }} ReclaimEntry
 */
/** @typedef {{ pid: number, tid: number, start: number | null }} Proc (machine clients) */

// context -> hub
/**
 * @typedef {{ t: 'hello', v: number, clientId: string, key: string, lostHub: string | null,
 *   reclaim: ReclaimEntry[], attempt?: number, proc?: Proc, batch?: boolean, then?: ContextMessage[], lease?: number, adopt?: true }} HelloMessage
 * @typedef {{ t: 'request', token: number, name: string, mode: LockMode, wait: WaitMode, under?: number, reject?: boolean,
 *   as?: string }} RequestMessage
 * @typedef {{ t: 'observe', call: number }} ObserveMessage
 * @typedef {{ t: 'unobserve', call: number }} UnobserveMessage
 * @typedef {{ t: 'release', token: number, as?: string }} ReleaseMessage
 * @typedef {{ t: 'abort', token: number, as?: string }} AbortMessage
 * @typedef {{ t: 'left', as: string }} LeftMessage
 * @typedef {{ t: 'query', call: number }} QueryMessage
 * @typedef {{ t: 'pong' }} PongMessage
 * @typedef {{ t: 'probe', call: number }} ProbeMessage
 * @typedef {{ t: 'bye' }} ByeMessage
 * @typedef {{ t: 'adopt', worker: number, as?: string }} AdoptMessage (+ a transferred MessagePort)
 * @typedef {{ t: 'ended', worker: number, as?: string }} EndedMessage
 * @typedef {{ t: 'sentinel' }} SentinelMessage (+ a transferred MessagePort)
 * @typedef {{ t: 'sync', call: number }} SyncMessage
 * @typedef {{ t: 'alive', name: string }} AliveMessage
 * @typedef {HelloMessage | RequestMessage | ObserveMessage | UnobserveMessage | ReleaseMessage | AbortMessage
 *   | QueryMessage | PongMessage | ProbeMessage | ByeMessage | AdoptMessage | EndedMessage | SentinelMessage
 *   | SyncMessage | AliveMessage | LeftMessage} ContextMessage
 */

// hub -> context
/**
 * @typedef {'held' | 'stolen' | 'queued'} Reclaimed what became of each reclaim entry of a hello, in its order
 * @typedef {{ t: 'welcome', v: number, hubId: string, clientId: string, reclaimed: Reclaimed[], fences?: (number | null)[] }} WelcomeMessage
 * @typedef {{ t: 'rejected', v: number, reason: 'hello' | 'version' | 'clientId' | 'quota' | 'process' | 'creator' | 'engine' | 'adopt',
 *   message: string }} RejectedMessage
 * @typedef {{ t: 'granted', token: number, fence?: number }} GrantedMessage
 * @typedef {{ t: 'released', token: number }} ReleasedMessage
 * @typedef {{ t: 'queued', seqs: number[] }} QueuedMessage
 * @typedef {{ t: 'notAvailable', token: number }} NotAvailableMessage
 * @typedef {{ t: 'stolen', token: number }} StolenMessage
 * @typedef {{ t: 'failed', token: number, name: string, message: string }} FailedMessage
 * @typedef {{ t: 'aborted', token: number, removed: boolean }} AbortedMessage
 * @typedef {{ t: 'snapshot', call: number, held: LockInfoColumns, pending: LockInfoColumns, more: boolean }} SnapshotMessage
 * @typedef {{ t: 'queryFailed', call: number, name: string, message: string }} QueryFailedMessage
 * @typedef {{ t: 'ping' }} PingMessage
 * @typedef {{ t: 'probed', call: number, hubId: string }} ProbedMessage
 * @typedef {{ t: 'hub', hubId: string }} HubIdMessage
 * @typedef {{ t: 'unregistered', hubId: string, call: number }} UnregisteredMessage
 * @typedef {{ t: 'synced', call: number }} SyncedMessage
 * @typedef {{ t: 'overloaded', waiting: number, max: number, message: string }} OverloadedMessage
 * @typedef {{ t: 'dead', why?: string }} DeadMessage
 * @typedef {{ t: 'changes', call: number, start: boolean, records: ChangeRecord[], held: LockInfo[], pending: LockInfo[],
 *   failed?: string }} ChangesMessage (failed: the hub could not observe; the context logs it)
 * @typedef {{ t: 'deadlock', token: number, cycle: CycleMember[] | null }} DeadlockMessage
 * @typedef {WelcomeMessage | RejectedMessage | GrantedMessage | ReleasedMessage | QueuedMessage | NotAvailableMessage
 *   | StolenMessage | FailedMessage | AbortedMessage | SnapshotMessage | QueryFailedMessage | PingMessage | ProbedMessage
 *   | HubIdMessage | UnregisteredMessage | SyncedMessage | OverloadedMessage | DeadMessage | ChangesMessage
 *   | DeadlockMessage} UnbatchedHubMessage
 * @typedef {{ t: 'batch', m: UnbatchedHubMessage[] }} BatchMessage (never nested)
 * @typedef {UnbatchedHubMessage | BatchMessage} HubMessage
 */

export const MODES = Object.freeze(['exclusive', 'shared']);
export const WAIT_MODES = Object.freeze(['wait', 'no-wait', 'preempt']);

// ---- validation: the hub's checks of what contexts send are in validate-client.js (hub code only) ----

export function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// What a hello may carry (`then`): messages that come with no ports and need a registration.
/** @type {Set<string>} */
export const HELLO_THEN_TYPES = new Set([C.request, C.release, C.abort, C.query, C.sync, C.observe, C.unobserve, C.ended, C.alive, C.left]);

/** The messages that may speak for a frame (`as`): what names a frame's own request, lock or worker. */
export const FRAME_TYPES = new Set([C.request, C.release, C.abort, C.adopt, C.ended, C.left]);

/** The hub's messages are trusted by the context only as far as their shape: cheap checks. */
export function isHubMessage(message) {
  return isPlainObject(message) && typeof message.t === 'string' && Object.prototype.hasOwnProperty.call(H, message.t);
}

/** Marker messages on app ports (worker <-> creating context): { [PORT_MARKER]: 'need-port' | 'port' }. */
export function markerOf(data) {
  return isPlainObject(data) && typeof data[PORT_MARKER] === 'string' ? data[PORT_MARKER] : null;
}

export function markerMessage(kind) {
  return { [PORT_MARKER]: kind };
}
