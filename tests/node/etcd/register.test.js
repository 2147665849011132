// `node --import weblocks-wasm/register-etcd` with WEBLOCKS_ETCD_ENDPOINTS: navigator.locks in every
// thread on the etcd lock space, shared with every other process pointed at the same cluster.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startCluster } from './support/cluster.js';

const register = fileURLToPath(new URL('../../../js/etcd/register.js', import.meta.url));
const cluster = await startCluster({ size: 1 });
after(() => cluster.stop());

function run(code, env) {
  const child = spawn(process.execPath, ['--import', register, '--input-type=module', '-e', code], {
    env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => { out += chunk; });
  const lines = [];
  const waiters = [];
  child.stdout.on('data', () => {
    const complete = out.split('\n');
    while (lines.length < complete.length - 1) {
      const line = complete[lines.length];
      lines.push(line);
      for (const waiter of [...waiters]) if (waiter.test(line)) { waiters.splice(waiters.indexOf(waiter), 1); waiter.resolve(line); }
    }
  });
  let exitCode = null;
  const exited = new Promise((resolve) => child.on('exit', (code) => {
    exitCode = code;
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the process exited (${code}) first; it printed: ${out}`));
    resolve(code);
  }));
  return {
    exited,
    tell: (line) => child.stdin.write(`${line}\n`),
    line: (test) => lines.find(test) ?? (exitCode !== null
      ? Promise.reject(new Error(`the process exited (${exitCode}); it printed: ${out}`))
      : new Promise((resolve, reject) => waiters.push({ test, resolve, reject }))),
  };
}

test('the etcd preload gives navigator.locks in the main thread and in workers, shared across processes', { timeout: 60_000 }, async () => {
  const env = { WEBLOCKS_ETCD_ENDPOINTS: cluster.hosts.join(','), WEBLOCKS_ETCD_NAMESPACE: `register-${process.pid}/`, WEBLOCKS_ETCD_LEASE_TTL: '3' };
  // Process 1 holds 'shared-across' until told to release (a line on its stdin).
  const holder = run(`
    await navigator.locks.request('shared-across', async (lock) => {
      console.log('held ' + lock.fencingToken);
      await new Promise((resolve) => process.stdin.once('data', resolve));
    });
    process.stdin.destroy();
    console.log('released');
  `, env);
  await holder.line((l) => l.startsWith('held '));
  // Process 2: its main thread and a worker thread see the lock as held by the other process.
  const other = run(`
    import { Worker } from 'node:worker_threads';
    const fromMain = await navigator.locks.request('shared-across', { ifAvailable: true }, (lock) => lock === null ? 'busy' : 'free');
    const state = await navigator.locks.query();
    const worker = new Worker("import { parentPort } from 'node:worker_threads'; navigator.locks.request('shared-across', { ifAvailable: true }, (lock) => parentPort.postMessage(lock === null ? 'busy' : 'free'));", { eval: true });
    const fromWorker = await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    console.log(JSON.stringify({ fromMain, fromWorker, held: state.held.filter((i) => i.name === 'shared-across').length }));
    const waited = await navigator.locks.request('shared-across', (lock) => 'granted ' + lock.fencingToken);
    console.log(waited);
  `, env);
  const report = JSON.parse(await other.line((l) => l.startsWith('{')));
  holder.tell('release');
  report.waited = await other.line((l) => l.startsWith('granted '));
  assert.equal(report.fromMain, 'busy');
  assert.equal(report.fromWorker, 'busy');
  assert.equal(report.held, 1);
  assert.match(report.waited, /^granted \d+$/);
  assert.equal(await holder.exited, 0);
  assert.equal(await other.exited, 0);
});
