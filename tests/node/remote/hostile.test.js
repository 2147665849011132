// Bad input and abuse: refused upgrades (authorize, Origin), frames that are not the protocol,
// oversized names and frames, floods, too many connections per space, a forged resume. Each is
// refused on its own connection with its documented close code; no other client's lock is touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import WebSocket from 'ws';
import { CLOSE } from '../../../js/remote/protocol.js';
import { startServer, until, hold, named, rawClient } from './support.js';

/** A raw WebSocket to the server, open. */
async function raw(url, options) {
  const socket = new WebSocket(url, options);
  socket.on('error', () => {});
  await once(socket, 'open');
  return socket;
}
const closeCode = async (socket) => (await once(socket, 'close'))[0];
const hello = (socket) => socket.send(JSON.stringify({ t: 'hello', v: 1 }));
async function welcomed(socket) {
  hello(socket);
  const [data] = await once(socket, 'message');
  return JSON.parse(String(data));
}
async function upgradeStatus(url, options) {
  const socket = new WebSocket(url, options);
  socket.on('error', () => {});
  const [req, res] = await once(socket, 'unexpected-response');
  req.destroy();
  return res.statusCode;
}

/** A lock held by a well-behaved client, checked to be still held (same client) at the end. */
async function bystander(t, manager) {
  const locks = manager();
  const h = hold(locks, 'bystander');
  await h.granted;
  const [{ clientId }] = (await locks.query()).held;
  return async () => {
    const state = await locks.query();
    assert.deepEqual(named(state.held, 'bystander').map((l) => l.clientId), [clientId], 'the bystander still holds its lock');
    h.release();
    assert.equal((await h.done).ok, true);
  };
}

test('authorize refusing: 401 without a space key, 403 when refused; the client\'s requests reject at once with NotAllowedError', async (t) => {
  const { port, manager } = await startServer(t);
  assert.equal(await upgradeStatus(`ws://127.0.0.1:${port}/locks`), 401);
  assert.equal(await upgradeStatus(`ws://127.0.0.1:${port}/locks?refuse=403`), 403);
  const refused = manager('s1', '&refuse=403');
  await assert.rejects(refused.request('x', () => {}), (error) => error.name === 'NotAllowedError' && error.status === 403);
  await assert.rejects(refused.query(), { name: 'NotAllowedError' });
});

test('Origin: the request\'s own host is allowed by default, another site is refused 403; an allow-list replaces the default', async (t) => {
  const { port, url } = await startServer(t);
  assert.equal(await upgradeStatus(url(), { origin: 'http://evil.example' }), 403);
  assert.equal(await upgradeStatus(url(), { origin: 'null' }), 403);
  const own = await raw(url(), { origin: `http://127.0.0.1:${port}` });
  assert.equal((await welcomed(own)).t, 'welcome');
  own.close();
  const listed = await startServer(t, { origins: ['https://app.example'] });
  assert.equal(await upgradeStatus(listed.url(), { origin: `http://127.0.0.1:${listed.port}` }), 403);
  const ok = await raw(listed.url(), { origin: 'https://app.example' });
  assert.equal((await welcomed(ok)).t, 'welcome');
  ok.close();
});

test('other paths and upgrades are left to the app', async (t) => {
  const { port, httpServer } = await startServer(t, { app: (req, res) => res.end('app') });
  const body = await (await fetch(`http://127.0.0.1:${port}/locks-not?space=s1`)).text();
  assert.equal(body, 'app');
  const seen = [];
  httpServer.on('upgrade', (req, socket) => { seen.push(req.url); socket.destroy(); });
  const other = new WebSocket(`ws://127.0.0.1:${port}/elsewhere`);
  other.on('error', () => {});
  await new Promise((resolve) => other.on('close', resolve)); // (events.once would reject on 'error')
  assert.deepEqual(seen, ['/elsewhere']);
});

test('malformed frames, oversized frames and names, floods, forged resumes: each closes its own connection with its code; the bystander keeps its lock', async (t) => {
  const { url, manager } = await startServer(t, { maxOutstanding: 8, maxNameLength: 64, maxFrameBytes: 4096 });
  const check = await bystander(t, manager);
  const cases = [
    ['not JSON', (s) => s.send('{nope'), CLOSE.malformed],
    ['binary', (s) => s.send(Buffer.from([1, 2, 3])), CLOSE.malformed],
    ['no hello', (s) => s.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'x', mode: 'exclusive', wait: 'wait' })), CLOSE.malformed],
    ['unknown type', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'bogus', s: 1, a: 0, id: 1 })); }, CLOSE.malformed],
    ['bad mode', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'x', mode: 'both', wait: 'wait' })); }, CLOSE.malformed],
    ['bad under', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'x', mode: 'exclusive', wait: 'wait', under: 'outer' })); }, CLOSE.malformed],
    ['bad reject', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'x', mode: 'exclusive', wait: 'wait', under: 1, reject: 'yes' })); }, CLOSE.malformed],
    ['sequence gap', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'query', s: 5, a: 0, id: 1 })); }, CLOSE.malformed],
    ['ack of frames never sent', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'query', s: 1, a: 99, id: 1 })); }, CLOSE.malformed],
    ['name too long', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'n'.repeat(65), mode: 'exclusive', wait: 'wait' })); }, CLOSE.nameTooLong],
    ['frame too big', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'query', s: 1, a: 0, id: 1, pad: 'p'.repeat(5000) })); }, 1009],
    ['flood of observers', async (s) => {
      await welcomed(s);
      for (let i = 1; i <= 9; i++) s.send(JSON.stringify({ t: 'obs', s: i, a: 0, id: i }));
    }, CLOSE.tooManyRequests],
    ['forged resume', (s) => s.send(JSON.stringify({ t: 'hello', v: 1, resume: { session: 'x', secret: 'y', received: 0 } })), CLOSE.sessionGone],
    ['release of another client\'s lock id', async (s) => { await welcomed(s); s.send(JSON.stringify({ t: 'rel', s: 1, a: 0, id: 1 })); s.send('{nope'); }, CLOSE.malformed],
  ];
  for (const [what, act, code] of cases) {
    const socket = await raw(url());
    const closed = closeCode(socket);
    await act(socket);
    assert.equal(await closed, code, what);
  }
  await check();
});

test('a flood of requests over maxOutstanding: those over it are refused one by one (QuotaExceededError), the rest are served, the connection and the bystander\'s lock stay', async (t) => {
  const { manager } = await startServer(t, { maxOutstanding: 16 });
  const check = await bystander(t, manager);
  const locks = manager();
  const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => locks.request(`burst-${i % 20}`, () => 'ran').then(
    (value) => value, (error) => error.name)));
  const ran = outcomes.filter((o) => o === 'ran').length;
  const refused = outcomes.filter((o) => o === 'QuotaExceededError').length;
  assert.equal(ran + refused, 200, `only 'ran' or a QuotaExceededError: ${[...new Set(outcomes)]}`);
  assert.ok(refused > 0, 'the burst went over the limit');
  assert.ok(ran >= 16, 'the requests within the limit ran');
  assert.equal(await locks.request('after', () => 'ok'), 'ok', 'the connection is still up');
  await check();
});

test('too many connections in one space: the next is closed with 4003; another space is not affected', async (t) => {
  const { url, manager, lockServer } = await startServer(t, { maxConnectionsPerSpace: 2 });
  const a = await raw(url('full'));
  const b = await raw(url('full'));
  await Promise.all([welcomed(a), welcomed(b)]);
  const c = await raw(url('full'));
  const closed = closeCode(c);
  hello(c);
  assert.equal(await closed, CLOSE.tooManyConnections);
  const elsewhere = manager('roomy');
  assert.equal(await elsewhere.request('x', (lock) => lock.name), 'x');
  a.close();
  await until(() => lockServer.stats().sessions === 2, 'a\'s session ended');
  const d = await raw(url('full'));
  assert.equal((await welcomed(d)).t, 'welcome');
  b.close();
  d.close();
});

test('a raw client that closes its socket while holding and waiting: its lock passes on, its wait is gone', async (t) => {
  const { url, manager } = await startServer(t);
  const socket = await raw(url());
  await welcomed(socket);
  socket.send(JSON.stringify({ t: 'req', s: 1, a: 0, id: 1, name: 'r', mode: 'exclusive', wait: 'wait' }));
  const [granted] = await once(socket, 'message');
  assert.equal(JSON.parse(String(granted)).t, 'granted');
  const other = manager();
  const next = hold(other, 'r');
  await until(async () => named((await other.query()).pending, 'r').length === 1);
  socket.close();
  await next.granted;
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a backend that cannot take a client (a machine folder whose socket path is too long): that connection closes with 1011, its request rejects at once, the server goes on', async (t) => {
  const { manager, lockServer } = await startServer(t, { backend: 'machine', machineFolder: `/tmp/${'x'.repeat(200)}` });
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const locks = manager();
  await assert.rejects(locks.request('x', () => {}), (error) => error.name === 'AbortError' && /1011/.test(error.message));
  await until(() => warnings.some((w) => /could not start/.test(w)), 'the server says why');
  assert.equal(lockServer.stats().sessions, 0);
  await assert.rejects(manager().query(), { name: 'AbortError' }, 'and again for the next client: the server is still up');
});

test('what request() itself refuses, sent as raw frames (a name starting with \'-\', a steal of a shared lock): failed with NotSupportedError, nothing taken, the connection goes on', { timeout: 30_000 }, async (t) => {
  const { url, manager } = await startServer(t);
  const check = await bystander(t, manager);
  const client = await rawClient(url());
  client.sendTogether(
    { t: 'req', id: 1, name: '-reserved', mode: 'exclusive', wait: 'wait' },
    { t: 'req', id: 2, name: 'bystander', mode: 'shared', wait: 'preempt' },
    { t: 'req', id: 3, name: 'fine', mode: 'exclusive', wait: 'wait' },
  );
  for (const id of [1, 2]) {
    const refused = await client.frameFor('failed', id);
    assert.equal(refused.name, 'NotSupportedError');
  }
  await client.frameFor('granted', 3); // the connection goes on
  assert.deepEqual(client.frames.filter((f) => f.id === 1 || f.id === 2).map((f) => f.t), ['failed', 'failed'], 'each refused, nothing else');
  const state = await manager().query();
  assert.deepEqual(named(state.held, '-reserved'), []);
  client.socket.close();
  await check();
});
