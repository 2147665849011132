// Each context claims a short name ("Tab 4", "Worker 2") by holding the lock "demo:name:<name>" for
// its whole life; query() then tells which clientId is which name (the held name lock's clientId).
// Names are never reused while the origin's storage lives: a tab's number comes from a counter in
// localStorage, read and advanced under the lock "demo:naming" (a worker's from its tab, which has
// localStorage), so a closed or crashed context's name stays its own in the timeline. The claim is
// made with ifAvailable: a name found taken (storage cleared while tabs lived) is skipped.
// If the lock is ever broken while the context lives (a steal, or the polyfill's hub declaring a
// silent context dead), the context says so and queues to take the same name back.
export const NAME_LOCK_PREFIX = 'demo:name:';
const NAMING_LOCK = 'demo:naming';
const COUNTER_KEY = (kind) => `demo:next-number:${kind}`;

const holdForever = () => new Promise(() => {});

/** The next unused number for `kind` in this origin (a tab only: workers have no localStorage). */
export function nextNumber(locks, kind) {
  return locks.request(NAMING_LOCK, () => {
    const number = Math.max(1, Number(localStorage.getItem(COUNTER_KEY(kind))) || 1);
    localStorage.setItem(COUNTER_KEY(kind), String(number + 1));
    return number;
  });
}

/** `next()` gives the number to try (nextNumber in a tab; in a worker, the one its tab chose). */
export async function claimContextName(locks, kind /* 'Tab' | 'Worker' */, { next = () => nextNumber(locks, kind), onLost = () => {}, onRegained = () => {} } = {}) {
  for (;;) {
    const name = `${kind} ${await next()}`;
    let released;
    const claimed = await new Promise((resolve, reject) => {
      released = locks.request(NAME_LOCK_PREFIX + name, { ifAvailable: true }, (lock) => {
        resolve(lock !== null);
        return lock ? holdForever() : undefined;
      });
      released.catch(reject);
    });
    if (claimed) {
      keepName(locks, name, released, { onLost, onRegained });
      return name;
    }
  }
}

function keepName(locks, name, released, { onLost, onRegained }) {
  released.catch((error) => {
    onLost(error);
    const again = locks.request(NAME_LOCK_PREFIX + name, () => {
      onRegained();
      return holdForever();
    });
    keepName(locks, name, again, { onLost, onRegained });
  });
}

export function contextNameOfLock(lockName) {
  return lockName.startsWith(NAME_LOCK_PREFIX) ? lockName.slice(NAME_LOCK_PREFIX.length) : null;
}
