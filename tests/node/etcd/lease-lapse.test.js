// A holder whose lease lapses never goes on believing it holds: paused past its TTL (SIGSTOP) it
// learns on resuming that its lock was lost (AbortError) and the resource refuses its writes by
// their fencing token; cut off from etcd (a partition, here a TCP proxy that stops forwarding) it
// takes the lock as lost by itself, before the lock space grants it to another client.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import net from 'node:net';
import { startCluster } from './support/cluster.js';
import { FencedResource } from './support/fenced-resource.js';
import { createLockManager, closeLockManager } from '../../../js/etcd/index.js';

const holderScript = new URL('./fixtures/holder.js', import.meta.url);
const cluster = await startCluster();
const children = new Set();
after(async () => {
  // A failed test must not leave a holder behind (a stopped one would keep this file alive).
  for (const child of children) { child.kill('SIGCONT'); child.kill('SIGKILL'); }
  await cluster.stop();
});

/** A forked holder process writing to `resource`; its messages, in order, as events to wait for. */
/** `promise`, or a rejection saying `why()` if it has not settled within `ms`. */
function within(promise, ms, why) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(why())), ms); })])
    .finally(() => clearTimeout(timer));
}

function startHolder(resource, options) {
  const child = fork(holderScript, [JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  const log = [];
  const waiters = [];
  let exitCode = null;
  child.on('message', (message) => {
    if (message.op === 'write') {
      const accepted = resource.write(message.name, message.holder, message.token);
      if (child.connected) child.send({ op: 'written', id: message.id, accepted });
      return;
    }
    log.push(message);
    for (const waiter of [...waiters]) {
      if (waiter.test(message)) { waiters.splice(waiters.indexOf(waiter), 1); waiter.resolve(message); }
    }
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => {
    exitCode = code;
    children.delete(child);
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`the holder exited (${code}) first; its messages: ${JSON.stringify(log)}`));
    resolve(code);
  }));
  const wait = (test, from) => {
    const seen = log.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    if (exitCode !== null) return Promise.reject(new Error(`the holder exited (${exitCode}); its messages: ${JSON.stringify(log)}`));
    return new Promise((resolve, reject) => waiters.push({ test, resolve, reject }));
  };
  return {
    child,
    log,
    exited,
    next: (test) => wait(test, 0),
    nextAfter: (index, test) => wait(test, index),
  };
}

test('a holder paused (SIGSTOP) past its lease learns on resuming that the lock was lost, and its writes are refused by fencing', { timeout: 60_000 }, async () => {
  const namespace = `lapse-${process.pid}/`;
  const resource = new FencedResource();
  const holder = startHolder(resource, { hosts: cluster.hosts, namespace, name: 'ledger', leaseTtl: 2, keepAliveInterval: 400 });
  const { token: pausedToken } = await holder.next((m) => m.op === 'granted');
  await holder.next((m) => m.op === 'wrote' && m.accepted);
  holder.child.kill('SIGSTOP');
  const pausedAt = holder.log.length;

  // Another client waits; it is granted once the paused holder's lease has expired in etcd.
  const other = createLockManager({ etcd: { hosts: cluster.hosts, namespace, leaseTtl: 2 } });
  let release;
  const started = performance.now();
  let otherSettled;
  const otherGranted = new Promise((resolve) => {
    otherSettled = other.request('ledger', (lock) => {
      resolve(lock.fencingToken);
      assert.equal(resource.write('ledger', 'other', lock.fencingToken), true, 'the new holder writes');
      return new Promise((r) => { release = r; });
    });
  });
  const otherToken = await otherGranted;
  console.log(`# paused holder's lock granted to another client ${(performance.now() - started).toFixed(0)} ms after SIGSTOP (lease TTL 2 s)`);
  assert.ok(otherToken > pausedToken, `the new token ${otherToken} is above the paused holder's ${pausedToken}`);

  holder.child.kill('SIGCONT');
  const settled = await holder.nextAfter(pausedAt, (m) => m.op === 'settled');
  assert.equal(settled.ok, false);
  assert.equal(settled.name, 'AbortError');
  assert.match(settled.message, /lease expired/);
  // Its callback goes on writing (nothing stops a callback): every such write is refused.
  await holder.nextAfter(pausedAt, (m) => m.op === 'wrote' && !m.accepted);
  assert.deepEqual(holder.log.slice(pausedAt).filter((m) => m.op === 'wrote' && m.accepted), [], 'no write of the paused holder accepted after resuming');
  holder.child.send({ op: 'stop' });
  await holder.exited;
  release('released');
  assert.equal(await otherSettled, 'released', 'the new holder kept its lock to the end');
  await closeLockManager(other);
  const result = resource.check();
  assert.deepEqual(result.violations, []);
  assert.ok(result.refused > 0);
});

test('a holder cut off from etcd takes its lock as lost by itself before another client is granted it', { timeout: 60_000 }, async () => {
  const namespace = `partition-${process.pid}/`;
  const resource = new FencedResource();
  // The holder reaches etcd only through this proxy; cutting it is the partition.
  const sockets = new Set();
  const proxy = net.createServer((socket) => {
    const upstream = net.connect(cluster.members[0].clientPort, '127.0.0.1');
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const drop = () => { socket.destroy(); upstream.destroy(); sockets.delete(socket); sockets.delete(upstream); };
    socket.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyHost = `http://127.0.0.1:${proxy.address().port}`;

  // A 4 s TTL: the holder's own deadline comes 5 % of it (200 ms) before etcd's, a margin that a
  // loaded machine's timer delays stay inside (with 2 s, 100 ms, a full parallel run missed it).
  const holder = startHolder(resource, { hosts: [proxyHost], namespace, name: 'ledger', leaseTtl: 4, keepAliveInterval: 400 });
  await holder.next((m) => m.op === 'granted');
  await holder.next((m) => m.op === 'wrote' && m.accepted);

  const settled = holder.next((m) => m.op === 'settled');
  // The partition: no more bytes either way, and no new connection.
  const cutAt = performance.now();
  await new Promise((resolve) => { proxy.close(resolve); for (const socket of sockets) socket.destroy(); });

  const other = createLockManager({ etcd: { hosts: cluster.hosts, namespace, leaseTtl: 4 } });
  let release;
  let otherSettled;
  let grantedAt;
  await new Promise((resolve) => {
    otherSettled = other.request('ledger', (lock) => {
      grantedAt = performance.timeOrigin + performance.now();
      resource.write('ledger', 'other', lock.fencingToken);
      resolve();
      return new Promise((r) => { release = r; });
    });
  });
  // Both events stamped where they happen, on the machine's clock: the holder's rejection in its
  // process, the grant here (which of the two messages this process reads first proves nothing).
  const lost = await within(settled, 20_000, () => `the holder never took its lock as lost; its messages: ${JSON.stringify(holder.log.slice(-5))}`);
  const cut = performance.timeOrigin + cutAt;
  console.log(`# cut-off holder took its lock as lost ${(lost.at - cut).toFixed(0)} ms after the partition; granted elsewhere at ${(grantedAt - cut).toFixed(0)} ms (lease TTL 4 s)`);
  assert.match(`${lost.name}: ${lost.message}`, /^AbortError: .*lease expired/);
  assert.ok(lost.at < grantedAt, `the holder took its lock as lost (at ${(lost.at - cut).toFixed(0)} ms) before the grant elsewhere (at ${(grantedAt - cut).toFixed(0)} ms)`);
  holder.child.send({ op: 'stop' });
  await holder.exited;
  release('released');
  assert.equal(await otherSettled, 'released', 'the new holder kept its lock to the end');
  await closeLockManager(other);
  assert.deepEqual(resource.check().violations, []);
});
