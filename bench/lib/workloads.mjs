// Workloads and adapters the browser pages and the Node children both run (plain ESM, no host API).

/**
 * Holds one name, enqueues `count` requests on it, then releases and waits for all of them to
 * run. Returns the milliseconds (by `now()`) spent enqueuing and draining.
 */
export async function pendingOnce(locks, count, now) {
  let release;
  let granted;
  const holding = new Promise((resolve) => { granted = resolve; });
  const holder = locks.request('pending', () => { granted(); return new Promise((resolve) => { release = resolve; }); });
  await holding;
  let ran = 0;
  let allRan;
  const drained = new Promise((resolve) => { allRan = resolve; });
  const callback = () => { if (++ran === count) allRan(); };
  const promises = new Array(count);
  const t0 = now();
  for (let i = 0; i < count; i++) promises[i] = locks.request('pending', callback);
  const t1 = now();
  release();
  await drained;
  const t2 = now();
  await holder;
  await Promise.all(promises);
  return { enqueue: t1 - t0, drain: t2 - t1 };
}

/** async-mutex (one Mutex per name) behind request(name, [options,] callback): exclusive only. */
export function mutexLocks(Mutex) {
  const mutexes = new Map();
  return {
    request(name, ...rest) {
      const callback = rest.pop();
      const options = rest[0] ?? {};
      if (options.steal || options.ifAvailable || options.mode === 'shared') throw new Error('async-mutex: exclusive only');
      let mutex = mutexes.get(name);
      if (!mutex) { mutex = new Mutex(); mutexes.set(name, mutex); }
      return mutex.runExclusive(() => callback({ name, mode: 'exclusive' }));
    },
  };
}
