// The hub's checks of every message a context sends it (protocol.js declares the shapes). Kept out
// of protocol.js, which every page loads: an object of validators under computed keys cannot be
// left out of a bundle, and pages never validate what contexts send (1.1 KB gzip of page code).
import { PROTOCOL_VERSION, LIMITS, C, MODES, WAIT_MODES, ALIVE_PREFIX, HELLO_THEN_TYPES, isPlainObject } from './protocol.js';

function isToken(value) {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isName(value) {
  return typeof value === 'string' && value.length <= LIMITS.nameLength;
}

/** A frame's clientId (`as`): what a hello's clientId may be. */
function isFrameId(value) {
  return typeof value === 'string' && value.length > 0 && value.length <= LIMITS.clientIdLength;
}

function hasOnlyKeys(message, keys) {
  for (const key in message) if (!keys.includes(key)) return false;
  return true;
}

function checkReclaimEntry(entry) {
  return isPlainObject(entry) && hasOnlyKeys(entry, ['token', 'name', 'mode', 'held', 'seq', 'wait', 'as'])
    && (entry.as === undefined || isFrameId(entry.as))
    && isToken(entry.token) && isName(entry.name) && MODES.includes(entry.mode)
    && typeof entry.held === 'boolean'
    // An ifAvailable request whose answer was lost: never a held lock.
    && (entry.wait === undefined || (entry.wait === 'no-wait' && entry.held === false))
    && (entry.seq === null || (typeof entry.seq === 'number' && Number.isSafeInteger(entry.seq) && entry.seq >= 0));
}

function checkProc(proc) {
  const id = (value) => Number.isSafeInteger(value) && value >= 0 && value <= 0x7fffffff;
  return isPlainObject(proc) && hasOnlyKeys(proc, ['pid', 'tid', 'start']) && id(proc.pid) && proc.pid > 0 && id(proc.tid)
    && (proc.start === null || (Number.isSafeInteger(proc.start) && proc.start >= 0));
}

// One validator per context -> hub type: returns null when valid, else the reason.
const CLIENT_VALIDATORS = {
  [C.hello](m) {
    if (!hasOnlyKeys(m, ['t', 'v', 'clientId', 'key', 'lostHub', 'reclaim', 'attempt', 'proc', 'batch', 'then', 'lease', 'adopt'])) return 'unexpected fields';
    if (typeof m.v !== 'number') return 'no protocol version';
    if (m.v !== PROTOCOL_VERSION) return null; // answered by the version check, whatever else it holds
    if (typeof m.key !== 'string' || m.key.length === 0 || m.key.length > 64) return 'bad key';
    if (typeof m.clientId !== 'string' || m.clientId.length === 0 || m.clientId.length > LIMITS.clientIdLength) return 'bad clientId';
    if (m.lostHub !== null && (typeof m.lostHub !== 'string' || m.lostHub.length > 64)) return 'bad lostHub';
    if (!Array.isArray(m.reclaim) || m.reclaim.length > LIMITS.reclaimEntries) return 'bad reclaim list';
    for (const entry of m.reclaim) if (!checkReclaimEntry(entry)) return 'bad reclaim entry';
    if (m.attempt !== undefined && !isToken(m.attempt)) return 'bad attempt'; // (a count, as a token is)
    if (m.proc !== undefined && !checkProc(m.proc)) return 'bad proc';
    // (lease and adopt: a machine hub's, which checks them: js/machine/machine-hub.js, "Leases")
    if (m.batch !== undefined && typeof m.batch !== 'boolean') return 'bad batch';
    if (m.then !== undefined) {
      if (!Array.isArray(m.then) || m.then.length > LIMITS.helloThen) return 'bad then list';
      for (const next of m.then) {
        if (!isPlainObject(next) || !HELLO_THEN_TYPES.has(next.t)) return 'bad message in then';
        const problem = validateClientMessage(next);
        if (problem !== null) return `bad message in then (${problem})`;
      }
    }
    return null;
  },
  [C.request](m) {
    if (!hasOnlyKeys(m, ['t', 'token', 'name', 'mode', 'wait', 'under', 'reject', 'as'])) return 'unexpected fields';
    if (!isToken(m.token)) return 'bad token';
    if (m.as !== undefined && !isFrameId(m.as)) return 'bad frame id';
    if (m.under !== undefined && !isToken(m.under)) return 'bad under';
    if (m.reject !== undefined && typeof m.reject !== 'boolean') return 'bad reject';
    if (typeof m.name !== 'string') return 'name is not a string';
    if (m.name.length > LIMITS.nameLength) return `name longer than ${LIMITS.nameLength}`;
    if (!MODES.includes(m.mode)) return 'bad mode';
    if (!WAIT_MODES.includes(m.wait)) return 'bad wait mode';
    if (m.wait === 'preempt' && m.mode !== 'exclusive') return 'steal of a shared lock';
    return null;
  },
  [C.release]: tokenOnly,
  [C.abort]: tokenOnly,
  [C.query]: callOnly,
  [C.probe]: callOnly,
  [C.pong]: bare,
  [C.bye]: bare,
  [C.adopt]: workerOnly,
  [C.ended]: workerOnly,
  [C.sentinel]: bare,
  [C.sync]: callOnly,
  [C.observe]: callOnly,
  [C.unobserve]: callOnly,
  [C.left](m) {
    if (!hasOnlyKeys(m, ['t', 'as'])) return 'unexpected fields';
    return isFrameId(m.as) ? null : 'bad frame id';
  },
  [C.alive](m) {
    if (!hasOnlyKeys(m, ['t', 'name'])) return 'unexpected fields';
    if (typeof m.name !== 'string' || !m.name.startsWith(ALIVE_PREFIX) || m.name.length > ALIVE_PREFIX.length + 64) return 'bad alive database name';
    return null;
  },
};

function tokenOnly(m) {
  if (!hasOnlyKeys(m, ['t', 'token', 'as'])) return 'unexpected fields';
  if (m.as !== undefined && !isFrameId(m.as)) return 'bad frame id';
  return isToken(m.token) ? null : 'bad token';
}

function callOnly(m) {
  if (!hasOnlyKeys(m, ['t', 'call'])) return 'unexpected fields';
  return isToken(m.call) ? null : 'bad call id';
}

function workerOnly(m) {
  if (!hasOnlyKeys(m, ['t', 'worker', 'as'])) return 'unexpected fields';
  if (m.as !== undefined && !isFrameId(m.as)) return 'bad frame id';
  return isToken(m.worker) ? null : 'bad worker number';
}

function bare(m) {
  return hasOnlyKeys(m, ['t']) ? null : 'unexpected fields';
}

/**
 * Checks a message a context sent to the hub. Returns null when it has a known type and exactly
 * that type's shape, else a short reason for the log. Never throws (getters cannot run: structured
 * clone delivers plain data only, and plain-object checks come first).
 */
export function validateClientMessage(message) {
  try {
    if (!isPlainObject(message)) return 'not a plain object';
    const validator = Object.prototype.hasOwnProperty.call(CLIENT_VALIDATORS, message.t) ? CLIENT_VALIDATORS[message.t] : undefined;
    if (validator === undefined) return `unknown type ${JSON.stringify(String(message.t)).slice(0, 40)}`;
    return validator(message);
  } catch {
    return 'unreadable message';
  }
}
