// The remote client under Bun and Deno (the package's "node" condition: the `ws` package or the
// runtime's WebSocket) and under Node 22 and 26: each takes a lock through the lock server, a Node
// client waits behind it, the runtime's process is SIGKILLed, and the lock passes on (its socket closed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServer, until, hold, named } from './support.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const holder = fileURLToPath(new URL('./fixtures/holder.mjs', import.meta.url));
const RUNTIMES = [
  ['Bun', `${repo}node_modules/@oven/bun-linux-x64/bin/bun`, []],
  ['Deno', `${repo}node_modules/@deno/linux-x64-glibc/deno`, ['run', '-A']],
  ['Node 22', `${repo}node_modules/node-22/bin/node`, []],
  ['Node 26', `${repo}node_modules/node-26/bin/node`, []],
];

for (const [runtime, binary, args] of RUNTIMES) {
  test(`${runtime}: a client takes a lock through the lock server, and its lock passes on when its process is SIGKILLed`, async (t) => {
    assert.ok(existsSync(binary), `${binary} is installed by npm ci (a devDependency)`);
    const { manager, url } = await startServer(t, { pingInterval: 3_600_000, grace: 3_600_000 });
    const child = spawn(binary, [...args, holder, url('s1'), 'runtime'], { stdio: ['ignore', 'pipe', 'inherit'], cwd: repo });
    t.after(() => child.kill('SIGKILL'));
    const [line] = await once(child.stdout, 'data');
    assert.match(String(line), /^held \d+/);
    const waiter = manager();
    const next = hold(waiter, 'runtime');
    await until(async () => named((await waiter.query()).pending, 'runtime').length === 1);
    child.kill('SIGKILL');
    await once(child, 'exit');
    await next.granted;
    next.release();
    assert.equal((await next.done).ok, true);
  });
}
