// A lock holder in a process of its own, for the liveness rounds of bench/remote/run.mjs (the bench
// SIGKILLs or SIGSTOPs it): node holder.mjs URL NAME. Prints 'held' once granted, and
// 'lost <error name>: <message>' when its request rejects (what a holder that was silent learns).
import { createLockManager } from '../../js/remote/node.js';

const [url, name] = process.argv.slice(2);
const locks = createLockManager({ url });
// An idle client keeps no process running, and a held lock is idle: this timer keeps it.
const keepAlive = setInterval(() => {}, 1 << 30);
locks.request(name, () => {
  process.stdout.write('held\n');
  return new Promise(() => {});
}).catch((error) => {
  process.stdout.write(`lost ${error.name}: ${error.message}\n`);
  clearInterval(keepAlive);
  locks.close();
});
