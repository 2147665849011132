// Node user across processes: started with --import weblocks-wasm/register-machine (from the
// installed tarball), this process forks a child (which inherits the preload), the child holds a
// lock, this process cannot take it; the child is SIGKILLed and the lock comes here. The hub was
// started from the installed package (node_modules/weblocks-wasm/js/machine/hub-process.js).
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const child = fork(new URL('./holder.mjs', import.meta.url));
await new Promise((resolve) => child.once('message', resolve));
const whileHeld = await navigator.locks.request('app', { ifAvailable: true }, (lock) => lock?.name ?? null);
const granted = navigator.locks.request('app', (lock) => lock.name);
child.kill('SIGKILL');
const afterKill = await granted;
const state = await navigator.locks.query();
const pidFile = path.join(process.env.WEBLOCKS_MACHINE_DIR, 'default.pid');
console.log(JSON.stringify({ space: process.env.WEBLOCKS_MACHINE_SPACE, whileHeld, afterKill, held: state.held.length }));
process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGTERM'); // the hub would exit by itself 30 s later
