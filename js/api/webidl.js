// WebIDL conversions used by LockManager.request(): DOMString, the LockOptions dictionary,
// the LockMode enum, AbortSignal and the LockGrantedCallback callback type.
// https://webidl.spec.whatwg.org/#es-type-mapping
// Pure ECMAScript: no host APIs, so it runs unchanged in browsers, workers, Node, Deno and Bun.

export const LOCK_MODES = Object.freeze(['exclusive', 'shared']);

/** https://webidl.spec.whatwg.org/#es-DOMString : ToString, lone surrogates kept as they are. */
export function toDOMString(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
  return String(value);
}

/** https://webidl.spec.whatwg.org/#es-boolean : ToBoolean. */
function toBoolean(value) {
  return !!value;
}

/** https://webidl.spec.whatwg.org/#es-enumeration : ToString, then it must be one of the values. */
function toLockMode(value) {
  const mode = toDOMString(value);
  if (mode !== 'exclusive' && mode !== 'shared') {
    throw new TypeError(
      `Failed to read the 'mode' property from 'LockOptions': The provided value '${mode}' is not a valid enum value of type LockMode.`);
  }
  return mode;
}

// The brand check of an AbortSignal: its 'aborted' getter throws on anything else.
const abortedGetter = typeof AbortSignal === 'function'
  ? Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get
  : undefined;

/** https://webidl.spec.whatwg.org/#es-interface : the value must implement AbortSignal. */
function toAbortSignal(value) {
  let isSignal = false;
  if (value !== null && typeof value === 'object') {
    if (abortedGetter) {
      try { abortedGetter.call(value); isSignal = true; } catch { isSignal = false; }
    } else {
      isSignal = typeof AbortSignal === 'function' && value instanceof AbortSignal;
    }
  }
  if (!isSignal) {
    throw new TypeError("Failed to read the 'signal' property from 'LockOptions': Failed to convert value to 'AbortSignal'.");
  }
  return value;
}

const DEFAULT_OPTIONS = Object.freeze({ ifAvailable: false, mode: 'exclusive', signal: undefined, steal: false });

/**
 * https://webidl.spec.whatwg.org/#es-dictionary : undefined/null give the defaults; any other
 * non-object is a TypeError; members are read once each, in lexicographic order
 * (ifAvailable, mode, signal, steal), so user getters observe WebIDL's order.
 */
export function toLockOptions(value) {
  if (value === undefined || value === null) return DEFAULT_OPTIONS;
  if (typeof value !== 'object' && typeof value !== 'function') {
    throw new TypeError("Failed to convert value to 'LockOptions': the provided value is not an object.");
  }
  const ifAvailable = value.ifAvailable;
  const mode = value.mode;
  const signal = value.signal;
  const steal = value.steal;
  return {
    ifAvailable: ifAvailable === undefined ? false : toBoolean(ifAvailable),
    mode: mode === undefined ? 'exclusive' : toLockMode(mode),
    signal: signal === undefined ? undefined : toAbortSignal(signal),
    steal: steal === undefined ? false : toBoolean(steal),
  };
}

/** https://webidl.spec.whatwg.org/#es-callback-function : a non-callable value is a TypeError. */
export function toCallback(value) {
  if (typeof value !== 'function') {
    throw new TypeError("Failed to execute 'request' on 'LockManager': parameter is not a function.");
  }
  return value;
}

/** A DOMException with the given name, e.g. 'NotSupportedError', 'AbortError'. */
// Taken at load: a detached iframe's global no longer yields its interface objects, and its
// LockManager must still reject with an InvalidStateError.
const DOMExceptionOfThisRealm = globalThis.DOMException;

export function domException(message, name) {
  return new DOMExceptionOfThisRealm(message, name);
}

/** The reason an aborted signal carries, or an AbortError where the runtime sets none. */
export function abortReason(signal) {
  const reason = signal.reason;
  return reason === undefined ? domException('The lock request was aborted.', 'AbortError') : reason;
}

/**
 * WebIDL interface members: operations and attributes are enumerable, the prototype has
 * Symbol.toStringTag, the interface object is named `name` and throws "Illegal constructor" (done by the class).
 */
export function shapeInterface(cls, name) {
  const proto = cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor') continue;
    const desc = Object.getOwnPropertyDescriptor(proto, key);
    desc.enumerable = true;
    Object.defineProperty(proto, key, desc);
  }
  Object.defineProperty(proto, Symbol.toStringTag, { value: name, writable: false, enumerable: false, configurable: true });
  // The interface object's name is its identifier, also after a minifier renamed the class.
  Object.defineProperty(cls, 'name', { value: name, writable: false, enumerable: false, configurable: true });
}
