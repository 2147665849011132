// The hub under load and abuse (js/hub/fair-inbox.js, quota.js, snapshot-pieces.js, resume.js),
// driven in one Node thread over MessageChannels: the same Hub and HubBackend the browser runs.
// A "raw" connection speaks the protocol directly, as a hostile page can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { HubBackend } from '../../../js/browser/hub-backend.js';
import { PROTOCOL_VERSION, LIMITS } from '../../../js/hub/protocol.js';
import { createLockManager } from '../../../js/api/index.js';
import { requestHandle } from '../suite/handle.js';
import { until } from './until.js';
import { fromColumns } from '../../../js/hub/snapshot-pieces.js';

const quiet = () => {};
const BIG = 'n'.repeat(LIMITS.nameLength);

async function lockSpace(t, options = {}) {
  const ports = [];
  const space = {
    hub: new Hub(await createLocalEngine(), { hubId: 'only', log: quiet, ...options }),
    client(clientId, backendOptions = {}) {
      const backend = new HubBackend(async () => {
        const { port1, port2 } = new MessageChannel();
        ports.push(port1, port2);
        space.hub.connect(port2);
        return port1;
      }, { clientId, log: quiet, ...backendOptions });
      return { backend, locks: createLockManager(backend) };
    },
    /** A connection that speaks the protocol itself; `heard` holds every message it receives. */
    raw(clientId, { keep = true } = {}) {
      const { port1, port2 } = new MessageChannel();
      ports.push(port1, port2);
      space.hub.connect(port2);
      const heard = [];
      // keep: false counts the replies only (a flooder in this same thread should not slow it with its own garbage).
      port1.on('message', (m) => { if (keep || heard.length === 0) heard.push(m); else heard.length++; });
      // (no key before protocol 3: lets this file run against the code before it, to show what it catches)
      port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, ...(PROTOCOL_VERSION >= 3 ? { key: `${clientId}-key` } : {}), lostHub: null, reclaim: [] });
      return { port: port1, heard, send: (m) => port1.postMessage(m) };
    },
  };
  t.after(() => {
    space.hub.stop();
    for (const port of ports) port.close();
  });
  return space;
}

/** Rejects if `promise` does not settle within `ms` (a hang is a failure, not a stuck test). */
function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

test('a context that wrongly decides its live hub is lost reconnects and keeps its held lock and its place in the queue', async (t) => {
  const space = await lockSpace(t);
  const a = space.client('a');
  const b = space.client('b');
  const holder = requestHandle(a.locks, 'x');
  await holder.granted;
  const other = requestHandle(b.locks, 'y');
  await other.granted;
  const waiting = requestHandle(a.locks, 'y');
  await until(() => space.hub.clientIds.get('a')?.tokens.size === 2, 'a waits for y at the hub');
  let bGranted = false;
  const waiter = requestHandle(b.locks, 'x');
  waiter.granted.then(() => { bGranted = true; });
  await until(() => space.hub.clientIds.get('b')?.tokens.size === 2, 'b waits for x');

  // As a flood made it conclude: a's hub "stopped answering"; it reconnects to the same, live hub.
  a.backend.hubLost();
  await until(() => a.backend.stats.reconnects === 1 && a.backend.helloEntries === null, 'a was welcomed again');
  const state = await a.locks.query();
  assert.deepEqual(state.held.map((l) => [l.name, l.clientId]).sort(), [['x', 'a'], ['y', 'b']]);
  assert.deepEqual(state.pending.map((l) => [l.name, l.clientId]).sort(), [['x', 'b'], ['y', 'a']]);
  assert.equal(bGranted, false, 'the waiter was not granted while the holder still runs its callback');
  other.release();
  await waiting.granted;              // a's waiting request kept its place
  holder.release();
  await waiter.granted;
  waiting.release();
  waiter.release();
  for (const outcome of await Promise.all([holder.settled, waiting.settled, other.settled, waiter.settled])) assert.equal(outcome.ok, true, JSON.stringify(outcome));
});

test('a hello on a new port with a live context\'s clientId but not its key is refused, and the context keeps its locks', async (t) => {
  const space = await lockSpace(t);
  const a = space.client('a');
  const holder = requestHandle(a.locks, 'x');
  await holder.granted;
  const rogue = space.raw('a');
  await until(() => rogue.heard.some((m) => m.t !== 'hub'), 'the rogue heard back');
  assert.equal(rogue.heard.find((m) => m.t !== 'hub').t, 'rejected');
  const state = await a.locks.query();
  assert.deepEqual(state.held.map((l) => l.clientId), ['a']);
  holder.release();
  assert.equal((await holder.settled).ok, true);
});

test('a connection flooding the hub does not hold up the handoffs of others', async (t) => {
  const space = await lockSpace(t);
  const a = space.client('a');
  const b = space.client('b');
  await (await a.locks.request('warm', async () => {}));
  await (await b.locks.request('warm', async () => {}));
  const flooder = space.raw('flooder', { keep: false });
  await until(() => flooder.heard.length > 0, 'the flooder is registered');
  // For FLOOD_MS, a burst of requests on its own names, queries and aborts every turn of the event
  // loop: each costs the hub engine work (a query snapshots everything the flooder queued).
  const FLOOD_MS = 1_500;
  let token = 0;
  let sent = 0;
  const floodEnd = performance.now() + FLOOD_MS;
  const flood = (async () => {
    while (performance.now() < floodEnd) {
      for (let i = 0; i < 300; i++) {
        token++;
        if (token % 3 === 0) flooder.send({ t: 'query', call: token });
        else if (token % 3 === 1) flooder.send({ t: 'request', token, name: `f${token % 50}`, mode: 'exclusive', wait: 'wait' });
        else flooder.send({ t: 'abort', token: token - 1 });
      }
      sent += 300;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  // Honest handoffs meanwhile: a and b take turns on one lock.
  const handoffs = [];
  while (performance.now() < floodEnd) {
    const t0 = performance.now();
    await (handoffs.length % 2 === 0 ? a : b).locks.request('turn', async () => {});
    handoffs.push(performance.now() - t0);
  }
  await flood;
  const st = space.hub.engine.snapshot();
  t.diagnostic(`state at the end: ${st.held.length} held, ${st.pending.length} pending; flooder heard ${flooder.heard.length}`);
  await until(() => (space.hub.inbox?.queued ?? 0) === 0, 'the flood is handled');
  t.diagnostic(`in order: ${handoffs.map((x) => x.toFixed(0)).join(' ')}`);
  handoffs.sort((x, y) => x - y);
  const p = (q) => handoffs[Math.min(handoffs.length - 1, Math.floor(q * handoffs.length))];
  t.diagnostic(`${handoffs.length} honest handoffs during a ${FLOOD_MS} ms flood of ${sent} messages: p50 ${p(0.5).toFixed(2)} ms, p99 ${p(0.99).toFixed(2)} ms, max ${p(1).toFixed(2)} ms; inbox stats ${JSON.stringify(space.hub.inbox?.stats)}`);
  // Outcomes only: the latencies above are diagnostics, never asserted (timings belong to bench/).
  assert.ok(handoffs.length >= 2, `both honest clients were granted the lock during the flood (${handoffs.length})`);
});

test('one connection cannot make the hub keep more than its share of memory: QuotaExceededError for it, nobody else disturbed', async (t) => {
  const space = await lockSpace(t);
  const honest = space.client('honest');
  const holder = requestHandle(honest.locks, BIG);
  await holder.granted;
  const attacker = space.raw('attacker');
  await until(() => attacker.heard.length > 0, 'the attacker is registered');
  const N = 2_000;
  for (let token = 1; token <= N; token++) attacker.send({ t: 'request', token, name: BIG, mode: 'exclusive', wait: 'wait' });
  await until(() => attacker.heard.filter((m) => m.t === 'failed').length > N * 0.9 || attacker.heard.length >= N + 1, 'the requests are answered');
  await until(() => space.hub.inbox.queued === 0, 'the inbox is empty');
  const refused = attacker.heard.filter((m) => m.t === 'failed' && m.name === 'QuotaExceededError');
  const conn = space.hub.clientIds.get('attacker');
  t.diagnostic(`${N} requests of ${LIMITS.nameLength} units: ${refused.length} refused, ${N - refused.length} kept (${conn.bytes} bytes charged of ${LIMITS.connectionBytes}); hub total ${space.hub.quota.total}`);
  assert.ok(refused.length > N * 0.9, 'nearly all refused');
  assert.ok(conn.bytes <= LIMITS.connectionBytes);
  assert.ok(space.hub.quota.total <= LIMITS.hubBytes);
  assert.match(refused[0].message, /more memory than the lock hub keeps for one context/);
  // The honest context is untouched: it still holds, and can request more.
  const more = requestHandle(honest.locks, 'other');
  await more.granted;
  more.release();
  holder.release();
  for (const outcome of await Promise.all([holder.settled, more.settled])) assert.equal(outcome.ok, true);
  // The attacker's connection gives everything back when it closes.
  space.hub.end(conn, 'gone');
  await until(() => space.hub.quota.total === 0, 'every byte is given back once the honest releases reach the hub', 5_000);
});

test('many connections together cannot fill the hub beyond its bound: an honest context is still served', async (t) => {
  const space = await lockSpace(t);
  const attackers = [];
  for (let i = 0; i < 12; i++) attackers.push(space.raw(`attacker-${i}`));
  await until(() => attackers.every((x) => x.heard.length > 0), 'the attackers are registered');
  const PER = 80; // 80 big requests are over 8 MiB: each attacker reaches its own cap
  for (const attacker of attackers) for (let token = 1; token <= PER; token++) attacker.send({ t: 'request', token, name: `${BIG.slice(1)}${token % 10}`, mode: 'shared', wait: 'wait' });
  await until(() => attackers.every((x) => x.heard.length > PER), 'every request answered');
  t.diagnostic(`hub total ${space.hub.quota.total} bytes of ${LIMITS.hubBytes}`);
  // Past hubBytes, a connection gets more only below an even share: at most twice hubBytes in all.
  assert.ok(space.hub.quota.total <= 2 * LIMITS.hubBytes);
  const honest = space.client('honest');
  const mine = requestHandle(honest.locks, 'mine');
  await mine.granted;
  mine.release();
  assert.equal((await mine.settled).ok, true);
});

test('query() of a large state arrives in bounded pieces and is complete', async (t) => {
  const space = await lockSpace(t);
  const holders = [];
  const HOLDERS = 8;
  const NAMES = 20; // 8 x 20 names of 65,536 units: a 21 MB state
  for (let c = 0; c < HOLDERS; c++) {
    const client = space.client(`holder-${c}`);
    for (let i = 0; i < NAMES; i++) holders.push(requestHandle(client.locks, `${BIG.slice(6)}${c}-${i}`));
  }
  await Promise.all(holders.map((h) => h.granted));
  const asker = space.raw('asker');
  await until(() => asker.heard.length > 0, 'registered');
  const t0 = performance.now();
  asker.send({ t: 'query', call: 1 });
  await until(() => asker.heard.some((m) => m.t === 'snapshot' && m.more === false), 'the last piece');
  const took = performance.now() - t0;
  // Each piece's columns (protocol 12) as LockInfos.
  const pieces = asker.heard.filter((m) => m.t === 'snapshot').map((m) => {
    const held = [];
    const pending = [];
    assert.ok(fromColumns(m.held, held) && fromColumns(m.pending, pending), 'well-formed columns');
    return { held, pending };
  });
  const sizes = pieces.map((p) => [...p.held, ...p.pending].reduce((n, l) => n + 2 * (l.name.length + l.clientId.length), 0));
  t.diagnostic(`${HOLDERS * NAMES} held names of ${LIMITS.nameLength} units: ${pieces.length} pieces, largest ${Math.max(...sizes)} bytes, ${took.toFixed(0)} ms`);
  assert.ok(pieces.length > 1);
  assert.ok(Math.max(...sizes) <= LIMITS.snapshotPieceBytes, 'every piece within the bound');
  assert.equal(pieces.reduce((n, p) => n + p.held.length, 0), HOLDERS * NAMES);
  // Through the API: query() puts the pieces back together.
  const client = space.client('reader');
  const state = await within(client.locks.query(), 10_000, 'query()');
  assert.equal(state.held.length, HOLDERS * NAMES);
  for (const h of holders) h.release();
  await Promise.all(holders.map((h) => h.settled));
});

test('query() rejects when its answer is lost instead of waiting forever', async (t) => {
  const space = await lockSpace(t);
  const client = space.client('c', { liveness: { QUERY_TIMEOUT: 300, HUB_SILENT_AFTER: 60_000 } });
  await client.locks.query(); // registered
  space.hub.query = () => {}; // the answer never comes
  const outcome = await within(client.locks.query().then(() => 'resolved', (error) => error), 5_000, 'query() with a lost answer');
  assert.equal(outcome.name, 'TimeoutError');
});

test('query() rejects when an answer cannot be deserialized, and the hub refuses an oversized state with QuotaExceededError', async (t) => {
  const space = await lockSpace(t);
  const client = space.client('c');
  await client.locks.query();
  space.hub.query = () => {};
  const lost = client.locks.query().then(() => 'resolved', (error) => error);
  await until(() => client.backend.queries.size === 1, 'the query is sent');
  client.backend.port.onmessageerror(new Event('messageerror'));
  assert.equal((await within(lost, 2_000, 'query() after messageerror')).name, 'DataCloneError');

  const raw = space.raw('too-many');
  await until(() => raw.heard.length > 0, 'registered');
  space.hub.inbox.queued++; // as under a flood: messages wait in their inbox
  for (let call = 1; call <= LIMITS.queriesPerClient + 3; call++) raw.send({ t: 'query', call });
  await until(() => raw.heard.filter((m) => m.t === 'queryFailed').length === 3, 'queries beyond the bound refused');
  space.hub.inbox.queued--;
  assert.equal(raw.heard.find((m) => m.t === 'queryFailed').name, 'QuotaExceededError');
});
