// The cross-process contenders, each as { withLock(name, fn) }: fn runs while this process holds
// the exclusive lock `name` against every other process of the same contender.
//   machine          this project's machine lock space (js/machine), hub in its own process
//   proper-lockfile  the npm package proper-lockfile: a lock directory, waiters poll (every 1 ms here,
//                    its fastest setting), which is what Node programs commonly use across processes
//   socket-echo      no lock: one bare round trip to another process over a Unix domain socket (a
//                    frame the size of a request written, read back by echo-server.mjs), the floor
//                    of any lock that asks another process
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export async function loadCrossProcess(name, folder) {
  if (name === 'machine') {
    const { createMachineLockManager } = await import('../../js/machine/locks.js');
    const locks = createMachineLockManager({ folder, space: 'bench' });
    return { withLock: (lockName, fn) => locks.request(lockName, fn) };
  }
  if (name === 'proper-lockfile') {
    const lockfile = require('proper-lockfile');
    const options = { realpath: false, retries: { forever: true, factor: 1, minTimeout: 1, maxTimeout: 1 } };
    return {
      async withLock(lockName, fn) {
        const release = await lockfile.lock(path.join(folder, lockName), options);
        try { return await fn(); } finally { await release(); }
      },
    };
  }
  if (name === 'socket-echo') {
    const socketPath = path.join(folder, 'echo.sock');
    const server = fork(new URL('./echo-server.mjs', import.meta.url), [socketPath], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await new Promise((resolve) => server.once('message', resolve));
    process.on('exit', () => server.kill());
    const socket = net.connect(socketPath);
    await new Promise((resolve) => socket.once('connect', resolve));
    // (the size of our request frame: 4 bytes of length and its JSON)
    const body = Buffer.from(JSON.stringify({ t: 'request', token: 123456, name: 'uncontended', mode: 'exclusive', wait: 'wait' }));
    const frame = Buffer.concat([Buffer.alloc(4), body]);
    frame.writeUInt32BE(body.length, 0);
    let answered = null;
    let expected = 0;
    socket.on('data', (chunk) => {
      expected -= chunk.length;
      if (expected <= 0) answered();
    });
    const roundTrip = () => new Promise((resolve) => { answered = resolve; expected = frame.length; socket.write(frame); });
    return {
      async withLock(lockName, fn) {
        await roundTrip();
        return fn();
      },
    };
  }
  throw new Error(`unknown cross-process contender ${name}`);
}

/**
 * The holder word: a 4-byte file every critical section reads and writes, so that a handoff
 * (an acquisition by another process than the previous one) is counted, whatever the contender.
 */
export function holderWord(folder) {
  const file = path.join(folder, 'holder');
  fs.writeFileSync(file, Buffer.alloc(4), { flag: 'a' }); // (never O_APPEND for the writes: they go to offset 0)
  const fd = fs.openSync(file, 'r+');
  const bytes = Buffer.alloc(4);
  return {
    /** In a critical section: true when the previous holder was another process. */
    take() {
      fs.readSync(fd, bytes, 0, 4, 0);
      const previous = bytes.readUInt32LE(0);
      bytes.writeUInt32LE(process.pid, 0);
      fs.writeSync(fd, bytes, 0, 4, 0);
      return previous !== process.pid;
    },
  };
}
