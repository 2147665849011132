// What every context needs of observeLocks without its client (observe-locks.js, loaded on the
// first call in browsers: js/api/lazy-observe-locks.js): the check of observeLocks()'s arguments,
// made at the call, and the deadlock messages (a request's OperationError, the console warning).
import { domException } from './webidl.js';
import { heldContextKnown } from './async-context.js';

/** Validates observeLocks()'s arguments; returns { callback, wanted(name), signal }. */
export function toObserveArguments(callback, options) {
  if (typeof callback !== 'function') {
    throw new TypeError("Failed to execute 'observeLocks': parameter 1 is not of type 'Function'.");
  }
  if (options !== undefined && options !== null && typeof options !== 'object') {
    throw new TypeError("Failed to execute 'observeLocks': parameter 2 is not an object.");
  }
  const names = options?.names;
  let wanted = () => true;
  if (typeof names === 'function') {
    wanted = (name) => !!names(name);
  } else if (names !== undefined) {
    if (names === null || typeof names[Symbol.iterator] !== 'function' || typeof names === 'string') {
      throw new TypeError("Failed to execute 'observeLocks': 'names' must be an array of names or a function of a name.");
    }
    const set = new Set(Array.from(names, String));
    wanted = (name) => set.has(name);
  }
  const signal = options?.signal;
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new TypeError("Failed to execute 'observeLocks': 'signal' is not an AbortSignal.");
  }
  const delay = options?.deadlockDelay === undefined ? DEFAULT_DEADLOCK_DELAY : Number(options.deadlockDelay);
  if (!(delay >= 0) || !Number.isFinite(delay)) {
    throw new TypeError("Failed to execute 'observeLocks': 'deadlockDelay' must be a finite number of milliseconds, 0 or more.");
  }
  const possible = options?.possibleDeadlocks === undefined ? !asyncContextKnownHere() : !!options.possibleDeadlocks;
  return { callback, wanted, signal, possibleDeadlocks: possible ? delay : null };
}

// A cycle of contexts that wait for each other, where the waits may not be inside the held locks'
// callbacks, is reported (certain: false) once it has lasted this long (ms), never sooner.
const DEFAULT_DEADLOCK_DELAY = 1000;

/**
 * Whether this environment tells which held lock a request is made inside, after awaits too
 * (AsyncContext, Node 24's AsyncLocalStorage): then only certain deadlocks are reported unless
 * possibleDeadlocks is asked for.
 */
function asyncContextKnownHere() {
  return heldContextKnown;
}

function isAbortSignal(value) {
  return value !== null && typeof value === 'object' && typeof value.aborted === 'boolean'
    && typeof value.addEventListener === 'function';
}

/** The error of a request that would close a certain deadlock (the reject option). */
export function deadlockError(cycle) {
  return domException(`The request would close a deadlock: ${describeCycle(cycle)}.`, 'OperationError');
}

/** "context A holds 'x' and waits for 'y'; context B holds 'y' and waits for 'x'" */
export function describeCycle(cycle) {
  if (cycle === null || cycle.length === 0) return 'a cycle too long to list';
  return cycle.map((member) => `context ${member.clientId} holds ${JSON.stringify(member.holds)} and, inside that lock's callback, waits for ${JSON.stringify(member.waitsFor)}`).join('; ');
}

/** Writes a deadlock warning to this context's console (a Node process warning WEBLOCKS_DEADLOCK). */
export function warnDeadlock(cycle) {
  const message = `weblocks-wasm: deadlock: ${describeCycle(cycle)}. None of these locks will ever be released.`;
  const process = globalThis.process;
  if (typeof process?.emitWarning === 'function' && process.versions?.node !== undefined) {
    process.emitWarning(message, { type: 'DeadlockWarning', code: 'WEBLOCKS_DEADLOCK' });
  } else {
    globalThis.console?.warn(message);
  }
}
