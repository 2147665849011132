// A small assertion module the suite uses in every runtime (node:assert is Node-only).

export class AssertionError extends Error {
  constructor(message) { super(message); this.name = 'AssertionError'; }
}

function show(value) {
  try {
    return typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function ok(value, message = `expected a truthy value, got ${show(value)}`) {
  if (!value) throw new AssertionError(message);
}

export function equal(actual, expected, message) {
  if (!Object.is(actual, expected)) {
    throw new AssertionError(`${message ? message + ': ' : ''}expected ${show(expected)}, got ${show(actual)}`);
  }
}

function deepEqualValues(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqualValues(a[k], b[k]));
}

export function deepEqual(actual, expected, message) {
  if (!deepEqualValues(actual, expected)) {
    throw new AssertionError(`${message ? message + ': ' : ''}expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** Awaits a promise that must reject; checks the error's name (and class or message when given). */
export async function rejects(promise, { name, instanceOf, message } = {}, label = '') {
  let error;
  let rejected = false;
  try {
    await promise;
  } catch (e) {
    error = e;
    rejected = true;
  }
  const prefix = label ? `${label}: ` : '';
  if (!rejected) throw new AssertionError(`${prefix}expected a rejection${name ? ' with ' + name : ''}, but it fulfilled`);
  if (name !== undefined && error?.name !== name) {
    throw new AssertionError(`${prefix}expected a rejection with ${name}, got ${error?.name}: ${error?.message}`);
  }
  if (instanceOf !== undefined && !(error instanceof instanceOf)) {
    throw new AssertionError(`${prefix}expected an instance of ${instanceOf.name}, got ${show(error)}`);
  }
  if (message !== undefined && !message.test(String(error?.message))) {
    throw new AssertionError(`${prefix}expected a message matching ${message}, got ${error?.message}`);
  }
  return error;
}
