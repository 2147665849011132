// Volume is never evidence of death (issue 26): flow control in the context (js/browser/flow.js)
// and the hub's refusal of a flooding connection's new messages (js/hub/hub.js refuse). Driven in
// one Node thread over MessageChannels: the same Hub and HubBackend the browser runs. A "raw"
// connection speaks the protocol itself and ignores flow control, as a hostile page can.
// WEBLOCKS_BURST sets the size of the honest burst (default 200,000, about 40 s on this 2-core
// machine; WEBLOCKS_BURST=1000000 for the full million, several minutes: one thread is the
// hub, the burst, the flood and the handoffs at once).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { PROTOCOL_VERSION, FLOW } from '../../../js/hub/protocol.js';
import { requestHandle } from '../suite/handle.js';
import { hubContext } from './hub-context.js';
import { until } from './until.js';

const BURST = Number(process.env.WEBLOCKS_BURST) || 200_000;

async function lockSpace(t) {
  const ports = [];
  const logged = [];
  const space = {
    logged,
    // With its echo to itself, as in hub-worker.js: this one thread is the hub, the burst and the
    // flood at once, and a pong stuck behind them is no silence (hearing.js).
    hub: new Hub(await createLocalEngine(), { hubId: 'only', hearing: new MessageChannel(), log: (level, text) => logged.push(text) }),
    client: (clientId) => hubContext({ hubNow: () => space.hub, ports, clientId }),
    /**
     * A connection that speaks the protocol itself; it counts what it hears and keeps every
     * message but the refusals past the first 1,000. It answers pings, as a live page's sentinel would: it is alive.
     */
    raw(clientId, reclaim = []) {
      const { port1, port2 } = new MessageChannel();
      ports.push(port1, port2);
      space.hub.connect(port2);
      const heard = { count: 0, failed: 0, messages: [] };
      port1.on('message', (m) => {
        heard.count++;
        if (m.t === 'failed') heard.failed++;
        if (m.t === 'ping') port1.postMessage({ t: 'pong' });
        if (heard.messages.length < 1000 || m.t !== 'failed') heard.messages.push(m);
      });
      port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, key: `${clientId}-key`, lostHub: null, reclaim });
      return { port: port1, heard, send: (m) => port1.postMessage(m) };
    },
    /** Names held by `clientId` in the hub's engine, now. */
    heldBy(clientId) {
      return space.hub.engine.snapshot().held.filter((l) => l.clientId === clientId).map((l) => l.name);
    },
  };
  t.after(() => {
    if (logged.length > 0) t.diagnostic(`hub log: ${logged.slice(0, 20).join(' | ')}`);
    space.hub.stop();
    for (const port of ports) port.close();
  });
  return space;
}

/** A raw connection that holds `names`, then sends `count` requests in one synchronous loop and never reads the answers. */
async function flooder(space, names, count) {
  const raw = space.raw('flooder');
  let token = 0;
  for (const name of names) raw.send({ t: 'request', token: ++token, name, mode: 'exclusive', wait: 'wait' });
  await until(() => raw.heard.messages.filter((m) => m.t === 'granted').length === names.length, 'the flooder holds its locks');
  for (let i = 0; i < count; i++) raw.send({ t: 'request', token: ++token, name: `flood-${i % 64}`, mode: 'exclusive', wait: 'wait' });
  return { raw, next: () => ++token };
}

test('a connection that floods the hub without flow control is told why and no longer read, and keeps the locks it holds; a hello with its key on a new port resumes it', { timeout: 120_000 }, async (t) => {
  const space = await lockSpace(t);
  const { raw } = await flooder(space, ['f-1', 'f-2'], 20_000);
  // While the flood is handled, the flooder's locks stay held, checked at every turn.
  const conn = space.hub.clientIds.get('flooder');
  let turns = 0;
  await until(() => {
    turns++;
    assert.deepEqual(space.heldBy('flooder').filter((n) => n.startsWith('f-')).sort(), ['f-1', 'f-2'], `the flooder's locks are held (turn ${turns})`);
    return space.hub.inbox.queued === 0 && raw.heard.messages.some((m) => m.t === 'overloaded');
  }, 'the flooder is told and what it had filed is handled');
  const told = raw.heard.messages.find((m) => m.t === 'overloaded');
  assert.equal(told.max, FLOW.MAX_QUEUED);
  assert.equal(told.waiting, FLOW.MAX_QUEUED);
  assert.match(told.message, new RegExp(`had ${FLOW.MAX_QUEUED} messages waiting at the lock hub, as many as one context may \\(${FLOW.MAX_QUEUED}\\).*the locks it holds and the requests the hub accepted are kept`));
  assert.equal(raw.heard.messages.some((m) => m.t === 'dead'), false, 'it was never told it is dead');
  assert.equal(space.hub.clientIds.get('flooder'), conn, 'it is still registered');
  assert.deepEqual(space.heldBy('flooder').filter((n) => n.startsWith('f-')).sort(), ['f-1', 'f-2']);
  assert.equal(space.logged.some((line) => /declared dead|locks released/.test(line)), false, space.logged.join('\n'));
  // It resumes on a new port with its key, listing what it holds, and its release is heard there.
  const again = space.raw('flooder', ['f-1', 'f-2'].map((name, i) => ({ token: i + 1, name, mode: 'exclusive', held: true, seq: null })));
  await until(() => again.heard.messages.some((m) => m.t === 'welcome'), 'the flooder is welcomed on a new port');
  assert.deepEqual(space.heldBy('flooder').filter((n) => n.startsWith('f-')).sort(), ['f-1', 'f-2']);
  again.send({ t: 'release', token: 1 });
  await until(() => !space.heldBy('flooder').includes('f-1'), 'its release is heard');
  assert.ok(space.heldBy('flooder').includes('f-2'));
});

test(`an honest context bursting ${BURST.toLocaleString('en')} requests in one synchronous loop beside a flooder: every request settles as the spec says, in order per name; the other holders keep their locks and keep handing off`, { timeout: Math.max(300_000, BURST / 2) }, async (t) => {
  const space = await lockSpace(t);
  const holder = space.client('holder');
  const a = space.client('a');
  const b = space.client('b');
  const burster = space.client('burster');
  const reader = space.client('reader');
  const kept = requestHandle(holder.locks, 'kept');          // held from start to end
  const stealable = requestHandle(holder.locks, 'stealable'); // the burst steals it
  const busy = requestHandle(holder.locks, 'busy');           // the burst's ifAvailable finds it taken
  await Promise.all([kept.granted, stealable.granted, busy.granted]);
  const { raw, next } = await flooder(space, ['f-held'], 20_000);

  // Two honest contexts hand `turn` back and forth until the burst is done. (Only the handoffs
  // after the burst's synchronous loop are timed: during it, this one thread runs nothing else.)
  let bursting = true;
  let timing = false;
  const handoffs = [];
  let turns = 0;
  const handing = (async () => {
    while (bursting) {
      const t0 = performance.now();
      const wasTiming = timing;
      await (turns++ % 2 === 0 ? a : b).locks.request('turn', async () => {});
      if (wasTiming) handoffs.push(performance.now() - t0);
    }
  })();
  // The flooder keeps flooding meanwhile, 300 messages a turn.
  const flooding = (async () => {
    while (bursting) {
      for (let i = 0; i < 300; i++) raw.send({ t: 'request', token: next(), name: `flood-${i % 64}`, mode: 'exclusive', wait: 'wait' });
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();

  // The burst: exclusive requests on 1,000 names whose callbacks note their order and return at
  // once; and every 100,000th, an ifAvailable on a name held elsewhere, one on a free name, a
  // steal, and a request aborted before it could have been sent.
  const NAMES = 1_000;
  const order = new Map();
  const special = [];
  const aborted = [];
  const started = performance.now();
  const promises = new Array(BURST);
  for (let i = 0; i < BURST; i++) {
    const name = `b${i % NAMES}`;
    promises[i] = burster.locks.request(name, () => {
      const list = order.get(name);
      if (list === undefined) order.set(name, [i]); else list.push(i);
    });
    if (i % 100_000 === 50_000) {
      special.push(burster.locks.request('busy', { ifAvailable: true }, (lock) => lock));
      special.push(burster.locks.request(`free-${i}`, { ifAvailable: true }, (lock) => lock?.name));
      special.push(burster.locks.request('stealable', { steal: true }, (lock) => lock?.name));
      const controller = new AbortController();
      const request = burster.locks.request(`aborted-${i}`, { signal: controller.signal }, () => 'ran');
      aborted.push({ controller, outcome: request.then((v) => ({ ok: true, v }), (e) => ({ ok: false, e })) });
    }
  }
  const madeIn = performance.now() - started;
  timing = true;
  const waitingHere = burster.backend.flow?.waiting;
  // Aborted while still waiting in this context: settled here, never sent.
  for (const { controller } of aborted) controller.abort(new Error('changed my mind'));
  // A query from another context during the burst: it settles, and shows the holder's lock.
  const during = await reader.locks.query();
  assert.ok(during.held.some((l) => l.name === 'kept' && l.clientId === 'holder'));

  const results = await Promise.allSettled(promises);
  const took = performance.now() - started;
  bursting = false;
  await Promise.all([handing, flooding]);

  assert.deepEqual(results.filter((r) => r.status === 'rejected').map((r) => String(r.reason)).slice(0, 3), [], 'no burst request rejected');
  let granted = 0;
  for (const [name, list] of order) {
    granted += list.length;
    for (let k = 1; k < list.length; k++) assert.ok(list[k] > list[k - 1], `${name} granted in request order`);
  }
  assert.equal(granted, BURST, 'every burst request was granted');
  const specials = await Promise.all(special);
  for (let k = 0; k < specials.length; k += 3) {
    assert.equal(specials[k], null, 'ifAvailable on a held name: no lock');
    assert.match(specials[k + 1], /^free-/, 'ifAvailable on a free name: the lock');
    assert.equal(specials[k + 2], 'stealable', 'the steal got the lock');
  }
  assert.deepEqual(await stealable.settled, { ok: false, name: 'AbortError', message: (await stealable.settled).message }, 'the holder of a stolen lock learns it');
  for (const { outcome } of aborted) {
    const result = await outcome;
    assert.equal(result.ok, false);
    assert.equal(result.e.message, 'changed my mind', 'rejected with the signal\'s reason');
  }
  assert.equal(space.hub.engine.snapshot().held.concat(space.hub.engine.snapshot().pending).some((l) => l.name.startsWith('aborted-')), false);

  // The holder kept its lock throughout, and so did the flooder.
  assert.ok(space.heldBy('holder').includes('kept'));
  assert.ok(space.heldBy('flooder').includes('f-held'), 'the flooder, whose port is open, still holds its lock');
  assert.equal(space.hub.clientIds.get('flooder').gone, false);
  assert.ok(handoffs.length >= 2, 'the two honest contexts handed the lock back and forth during the burst');
  assert.equal(space.logged.some((line) => /declared dead|locks released/.test(line)), false);
  const after = await reader.locks.query();
  assert.deepEqual(after.held.filter((l) => l.clientId === 'holder').map((l) => l.name).sort(), ['busy', 'kept']);
  kept.release();
  busy.release();
  assert.equal((await kept.settled).ok, true);

  handoffs.sort((x, y) => x - y);
  const p = (q) => handoffs[Math.min(handoffs.length - 1, Math.floor(q * handoffs.length))].toFixed(2);
  t.diagnostic(`burst of ${BURST} requests: made in ${madeIn.toFixed(0)} ms (${waitingHere} waiting in the context after the loop), all settled in ${took.toFixed(0)} ms; syncs ${burster.backend.flow?.stats.syncs}, most waiting ${burster.backend.flow?.stats.mostWaiting}; hub inbox ${JSON.stringify(space.hub.inbox.stats)}`);
  t.diagnostic(`${handoffs.length} honest handoffs meanwhile: p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, max ${p(1)} ms; flooder heard ${raw.heard.count} answers`);
});

test('10,000 requests made in one synchronous loop and held: query() from another context shows all of them held, and none is refused', { timeout: 120_000 }, async (t) => {
  const space = await lockSpace(t);
  const burster = space.client('burster');
  const reader = space.client('reader');
  const N = 10_000;
  const handles = [];
  for (let i = 0; i < N; i++) handles.push(requestHandle(burster.locks, `h${i}`));
  await Promise.all(handles.map((h) => h.granted));
  const state = await reader.locks.query();
  assert.equal(state.held.filter((l) => l.clientId === 'burster').length, N);
  // And pending ones: 10,000 more on one name, behind a holder.
  const waiters = [];
  for (let i = 0; i < N; i++) waiters.push(requestHandle(burster.locks, 'h0'));
  await until(() => space.hub.clientIds.get('burster').tokens.size === 2 * N, 'every request reached the hub', 60_000);
  const both = await reader.locks.query();
  assert.equal(both.pending.filter((l) => l.name === 'h0').length, N);
  for (const h of handles) h.release();
  for (const w of waiters) { await w.granted; w.release(); }
  for (const outcome of await Promise.all([...handles, ...waiters].map((h) => h.settled))) assert.equal(outcome.ok, true);
});
