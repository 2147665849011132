// A context's first requests ride in its hello (`then`) and what the hub sends it in one task comes
// as one message (H.batch), so a page busy with its own load reads its welcome and its first grant
// in one task (protocol 9, hub.js sendTo). Raw contexts over Node MessageChannels, and HubBackend
// contexts; a hub of version 8 is played by a port that refuses the hello as such a hub does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { HubBackend } from '../../../js/browser/hub-backend.js';
import { createLockManager } from '../../../js/api/index.js';
import { PROTOCOL_VERSION, LIMITS } from '../../../js/hub/protocol.js';
import { hubContext } from './hub-context.js';
import { until } from './until.js';

const quiet = () => {};

async function hubSpace(t) {
  const hub = new Hub(await createLocalEngine(), { hubId: 'only', log: quiet });
  const ports = [];
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  /** A raw context: `posts` is every message the hub posted to it, as posted (a batch is one). */
  const raw = (clientId, hello = {}) => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    const posts = [];
    port1.on('message', (m) => posts.push(m));
    hub.connect(port2);
    port1.postMessage({ t: 'hello', v: PROTOCOL_VERSION, clientId, key: `key-${clientId}`, lostHub: null, reclaim: [], ...hello });
    return { port: port1, posts, heard: () => posts.flatMap((m) => (m.t === 'batch' ? m.m : [m])) };
  };
  const client = (clientId) => hubContext({ hubNow: () => hub, ports, clientId });
  return { hub, raw, client, ports };
}

const request = (token, name) => ({ t: 'request', token, name, mode: 'exclusive', wait: 'wait' });

test('a hello that carries a first request and asks for batches gets its welcome and the grant in one message', async (t) => {
  const space = await hubSpace(t);
  const c = space.raw('c', { batch: true, then: [request(1, 'x'), request(2, 'y')] });
  await until(() => c.heard().filter((m) => m.t === 'granted').length === 2, 'both requests are granted');
  // The first message says which hub this is (sent as the port connects, before any hello).
  assert.deepEqual(c.posts.map((m) => m.t), ['hub', 'batch']);
  assert.deepEqual(c.posts[1].m.map((m) => (m.t === 'granted' ? `granted ${m.token}` : m.t)), ['welcome', 'granted 1', 'granted 2']);
});

test('a context that does not ask for batches gets one message per answer, as before', async (t) => {
  const space = await hubSpace(t);
  const c = space.raw('c', { then: [request(1, 'x')] });
  await until(() => c.heard().some((m) => m.t === 'granted'), 'the carried request is granted');
  assert.deepEqual(c.posts.map((m) => m.t), ['hub', 'welcome', 'granted']);
});

test('a hello carrying what a hello may not carry, or too much, is refused and nothing it carried is done', async (t) => {
  const space = await hubSpace(t);
  const cases = [
    ['a hello in then', [{ t: 'hello', v: PROTOCOL_VERSION, clientId: 'x', key: 'k', lostHub: null, reclaim: [] }]],
    ['a port-carrying type in then', [{ t: 'sentinel' }]],
    ['an invalid request in then', [{ t: 'request', token: 1, name: 'x', mode: 'neither', wait: 'wait' }]],
    ['too many', Array.from({ length: LIMITS.helloThen + 1 }, (_, i) => request(i + 1, `n${i}`))],
  ];
  for (const [label, then] of cases) {
    const c = space.raw(`bad-${label}`, { batch: true, then });
    await until(() => c.heard().some((m) => m.t === 'rejected'), `${label}: refused`);
    assert.equal(c.heard().find((m) => m.t === 'rejected').reason, 'hello', label);
    assert.equal(c.heard().some((m) => m.t === 'welcome' || m.t === 'granted'), false, label);
  }
  assert.equal(space.hub.engine.snapshot().held.length, 0, 'nothing carried was granted');
});

test('a steal in one turn posts its victim\'s news before its thief\'s grant, across batches', async (t) => {
  const space = await hubSpace(t);
  const holder = space.raw('holder', { batch: true, then: [request(1, 'x')] });
  await until(() => holder.heard().some((m) => m.t === 'granted'), 'the holder holds x');
  const order = [];
  const note = (who, port) => port.on('message', (m) => { for (const one of m.t === 'batch' ? m.m : [m]) order.push(`${who} ${one.t}`); });
  note('holder', holder.port);
  const thief = space.raw('thief', { batch: true, then: [{ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'preempt' }] });
  note('thief', thief.port);
  await until(() => order.includes('thief granted') && order.includes('holder stolen'), 'the steal is delivered');
  assert.ok(order.indexOf('holder stolen') < order.indexOf('thief granted'), JSON.stringify(order));
});

test('a context\'s first request and its callback work through batches, and a later request is granted on its own', async (t) => {
  const space = await hubSpace(t);
  const a = space.client('a');
  assert.equal(await a.locks.request('x', (lock) => lock.name), 'x');
  assert.equal(await a.locks.request('y', { mode: 'shared' }, (lock) => lock.mode), 'shared');
  const b = space.client('b');
  let letGo;
  const held = a.locks.request('z', () => new Promise((resolve) => { letGo = resolve; }));
  await until(() => letGo !== undefined, 'a holds z');
  const waited = b.locks.request('z', () => 'b got z');
  letGo();
  await held;
  assert.equal(await waited, 'b got z');
});

test('a page whose hub speaks version 8 fails every request with a NotSupportedError naming both versions', async () => {
  // A hub of version 8 refuses a hello with fields it does not know, with its own version.
  const backend = new HubBackend(async () => {
    const { port1, port2 } = new MessageChannel();
    port2.on('message', (m) => {
      if (m.t === 'hello') port2.postMessage({ t: 'rejected', v: 8, reason: 'hello', message: "The lock hub refused this context's hello (unexpected fields)." });
    });
    port1.unref();
    port2.unref();
    return port1;
  }, { clientId: 'new', log: quiet });
  const locks = createLockManager(backend);
  await assert.rejects(locks.request('x', () => 'never'), (error) => {
    assert.equal(error.name, 'NotSupportedError');
    assert.match(error.message, new RegExp(`the page speaks version ${PROTOCOL_VERSION}, the lock hub speaks 8 \\(it said: .*unexpected fields.*\\)\\. Serve the polyfill and the hub from the same build`));
    return true;
  });
});
