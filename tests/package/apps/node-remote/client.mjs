// A Node (Bun, Deno) client of the installed package: two clients of one lock server exclude each
// other; grants carry fencing tokens; the process ends by itself (no close()). argv: the server's URL.
import { createLockManager, lockHeaders } from 'weblocks-wasm/remote';

const [a, b] = [createLockManager({ url: process.argv[2] }), createLockManager({ url: process.argv[2] })];
let release;
const held = new Promise((granted) => {
  a.request('app', (lock) => { granted(lock); return new Promise((resolve) => { release = resolve; }); });
});
const lock = await held;
const whileHeld = await b.request('app', { ifAvailable: true }, (l) => l?.name ?? null);
const after = b.request('app', (l) => l.name);
release();
console.log(JSON.stringify({ whileHeld, after: await after, fenced: Number.isSafeInteger(lock.fencingToken), header: lockHeaders(lock)['weblocks-lock'] }));
