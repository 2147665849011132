// A request whose callback is controlled from outside: the RemoteRequest shape of docs/api.md.
// Hosts use it in every context (the thread agent relays it over messages).

/**
 * Makes `locks.request(name, options, callback)` where options are plain data
 * ({ mode, ifAvailable, steal, signal: true }); the callback holds the lock until release()/fail().
 */
export function requestHandle(locks, name, options = {}) {
  let onGranted;
  let release;
  let fail;
  const granted = new Promise((resolve) => { onGranted = resolve; });
  const callbackResult = new Promise((resolve, reject) => { release = resolve; fail = reject; });
  const controller = options.signal ? new AbortController() : null;
  const requestOptions = {};
  for (const key of ['mode', 'ifAvailable', 'steal']) {
    if (options[key] !== undefined) requestOptions[key] = options[key];
  }
  if (controller) requestOptions.signal = controller.signal;
  const promise = locks.request(name, requestOptions, (lock) => {
    if (lock === null) {
      onGranted(null);
      return 'no-lock';
    }
    onGranted({ name: lock.name, mode: lock.mode });
    return callbackResult;
  });
  const settled = promise.then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, name: error?.name, message: error?.message }));
  return {
    granted,
    settled,
    release: (value) => release(value),
    fail: (message = 'callback failed') => fail(new Error(message)),
    abort: (reason) => {
      if (!controller) throw new Error('requested without signal: true');
      controller.abort(reason);
    },
  };
}

let counter = 0;
/** A lock name no other case uses. */
export function uniqueName(label) {
  counter += 1;
  return `${label}#${counter}#${Math.random().toString(36).slice(2, 8)}`;
}
