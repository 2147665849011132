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
  let innerHandle;
  const inner = new Promise((resolve) => { innerHandle = resolve; });
  // requestInside(): a request made later inside this callback, in its async context.
  let inside;
  const insideCommand = new Promise((resolve) => { inside = resolve; });
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
    // options.inner: a request made at once inside this callback (synchronously: in every host
    // that restores the callback's context, and where only the synchronous part is known).
    if (options.inner !== undefined) innerHandle(requestHandle(locks, options.inner.name, options.inner.options));
    // (The continuation after this await runs in the callback's async context.)
    insideCommand.then(({ name: innerName, options: innerOptions, answer }) => answer(requestHandle(locks, innerName, innerOptions)));
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
    /** With options.inner: the request made in the callback, once granted ({ granted, settled }). */
    inner: {
      granted: inner.then((handle) => handle.granted),
      settled: inner.then((handle) => handle.settled),
    },
    /** Once granted: a request made inside this callback (its handle: { granted, settled, ... }). */
    requestInside(innerName, innerOptions = {}) {
      let answer;
      const handle = new Promise((resolve) => { answer = resolve; });
      inside({ name: innerName, options: innerOptions, answer });
      return {
        granted: handle.then((inner) => inner.granted),
        settled: handle.then((inner) => inner.settled),
        release: (value) => handle.then((inner) => inner.release(value)),
      };
    },
  };
}

let counter = 0;
/** A lock name no other case uses. */
export function uniqueName(label) {
  counter += 1;
  return `${label}#${counter}#${Math.random().toString(36).slice(2, 8)}`;
}
