// Each context claims a short name ("Tab 1", "Worker 2") by holding the lock "demo:name:<name>" for
// its whole life: the lowest free number wins, a closed or crashed context frees its number, and
// query() then tells which clientId is which name (the held name lock's clientId).
// If the lock is ever broken while the context lives (a steal, or the polyfill's hub declaring a
// silent context dead), the context says so and queues to take the same name back.
export const NAME_LOCK_PREFIX = 'demo:name:';

const holdForever = () => new Promise(() => {});

export async function claimContextName(locks, kind /* 'Tab' | 'Worker' */, { onLost = () => {}, onRegained = () => {} } = {}) {
  for (let number = 1; ; number += 1) {
    const name = `${kind} ${number}`;
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
