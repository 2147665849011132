// What the machine lock space tests share: a private lock space folder per test (mkdtemp makes
// it 0700), child processes that join it, and the end of its hub once the test is done.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REGISTER_MACHINE = fileURLToPath(new URL('../../../js/machine/register.js', import.meta.url));

/**
 * A fresh lock space for test `t`: { folder, space, env, files }. Its hub (if one started) is
 * killed and its folder removed after the test. Hubs exit by themselves 1.5 s after their last
 * client in any case (WEBLOCKS_MACHINE_IDLE_MS).
 */
export function freshSpace(t, { space = 'test' } = {}) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-'));
  const env = { ...process.env, WEBLOCKS_MACHINE_DIR: folder, WEBLOCKS_MACHINE_SPACE: space, WEBLOCKS_MACHINE_IDLE_MS: '1500' };
  delete env.NODE_OPTIONS;
  const files = { folder, space, socket: path.join(folder, `${space}.sock`), pid: path.join(folder, `${space}.pid`), log: path.join(folder, `${space}.log`), journal: path.join(folder, `${space}.journal`) };
  // This test process's own hubs (started by its own requests) read these.
  process.env.WEBLOCKS_MACHINE_IDLE_MS = '1500';
  const cleanUp = () => {
    // A client still alive (a test's other after-hooks, such as a process host's dispose, run after
    // this one) reconnects after the kill and starts a hub again, which writes into the folder as
    // it is removed (ENOTEMPTY, once in a clean-clone run): kill whatever hub serves it and remove
    // again, for a bounded time.
    const deadline = Date.now() + 10_000;
    for (;;) {
      killHub(files);
      try {
        fs.rmSync(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
        return;
      } catch (error) {
        if (error?.code !== 'ENOTEMPTY' || Date.now() > deadline) throw error;
      }
    }
  };
  t.after(cleanUp);
  // Again when this test file's process exits: a client of this process that still held a lock
  // when its test ended reconnects after the hub's kill, which makes the folder and a hub again.
  spaces.add(cleanUp);
  return { folder, space, env, files };
}

const spaces = new Set();
process.once('exit', () => { for (const cleanUp of spaces) cleanUp(); });

/** The pid of the hub serving `files` now, or null. */
export function hubPid(files) {
  try {
    const pid = Number.parseInt(fs.readFileSync(files.pid, 'utf8'), 10);
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

export function killHub(files, signal = 'SIGKILL') {
  const pid = hubPid(files);
  if (pid !== null) try { process.kill(pid, signal); } catch { /* gone */ }
  return pid;
}

/** Resolves with the exit code (or signal) of a child process. */
export function exitOf(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? child.signalCode);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
}

/** A Node process joining the lock space with --import weblocks-wasm/register-machine. */
export function forkJoined(script, args, env, options = {}) {
  return fork(script, args, { env, execArgv: ['--import', REGISTER_MACHINE], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...options });
}
