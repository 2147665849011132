// fence(req) on the app's own endpoints: a ticket while the lock is held now in the request's own
// space; while a ticket is open the lock does not pass on (its holder released it, its client
// vanished, or a thief took it); 400/401/403/409 otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { lockHeaders } from '../../../js/remote/node.js';
import { startServer, until, hold, named } from './support.js';

const req = (space, headers) => ({ url: `/write?space=${space}`, headers });

test('fence() answers 400 without the headers, 401/403 when not authorized, 409 for a token not current or of another space', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const locks = manager();
  const h = hold(locks, 'doc');
  const headers = lockHeaders(await h.granted);
  await assert.rejects(lockServer.fence(req('s1', {})), { status: 400 });
  await assert.rejects(lockServer.fence(req('s1', { ...headers, 'weblocks-fencing-token': '12x' })), { status: 400 });
  await assert.rejects(lockServer.fence({ url: '/write', headers }), { status: 401 });
  await assert.rejects(lockServer.fence({ url: '/write?refuse=403', headers }), { status: 403 });
  await assert.rejects(lockServer.fence(req('other', headers)), { status: 409 });
  await assert.rejects(lockServer.fence(req('s1', { ...headers, 'weblocks-fencing-token': String(Number(headers['weblocks-fencing-token']) + 1) })), { status: 409 });
  const ticket = await lockServer.fence(req('s1', headers));
  assert.equal(ticket.name, 'doc');
  assert.equal(ticket.space, 's1');
  assert.equal(String(ticket.fencingToken), headers['weblocks-fencing-token']);
  ticket.done();
  h.release();
  await h.done;
  await assert.rejects(lockServer.fence(req('s1', headers)), { status: 409 }, 'released: no longer current');
  assert.throws(() => lockHeaders({ name: 'x', mode: 'exclusive' }), TypeError);
});

test('an open ticket keeps a released lock from the next holder until done(); then it passes on', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const [a, b] = [manager(), manager()];
  const first = hold(a, 'doc');
  const ticket = await lockServer.fence(req('s1', lockHeaders(await first.granted)));
  const next = hold(b, 'doc');
  await until(async () => named((await b.query()).pending, 'doc').length === 1);
  first.release();
  let nextGranted = false;
  next.granted.then(() => { nextGranted = true; });
  // The release is refused to fence() at once (a new ticket gets 409), but the lock stays held.
  await until(() => lockServer.fence(req('s1', lockHeaders({ name: 'doc', mode: 'exclusive', fencingToken: ticket.fencingToken }))).then((early) => { early.done(); return false; }, (e) => e.status === 409));
  const state = await b.query();
  assert.equal(named(state.held, 'doc').length, 1, 'still held while the ticket is open');
  assert.equal(named(state.pending, 'doc').length, 1);
  assert.equal(nextGranted, false);
  ticket.done();
  await next.granted;
  next.release();
  assert.equal((await first.done).ok, true);
  assert.equal((await next.done).ok, true);
});

test('a request still running on the server when its client process is killed: the next holder waits for its ticket', async (t) => {
  const { manager, lockServer, url } = await startServer(t, { pingInterval: 3_600_000, grace: 3_600_000 });
  const child = spawn(process.execPath, [new URL('./fixtures/holder.mjs', import.meta.url).pathname, url('s1'), 'doc'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const [line] = await once(child.stdout, 'data');
  const token = Number(String(line).split(' ')[1]);
  const ticket = await lockServer.fence(req('s1', lockHeaders({ name: 'doc', mode: 'exclusive', fencingToken: token })));
  const waiter = manager();
  const next = hold(waiter, 'doc');
  await until(async () => named((await waiter.query()).pending, 'doc').length === 1);
  child.kill('SIGKILL');
  await once(child, 'exit');
  await until(() => lockServer.stats().sessions === 1, 'the killed client\'s session ended');
  let granted = false;
  next.granted.then(() => { granted = true; });
  assert.equal(named((await waiter.query()).held, 'doc').length, 1, 'the dead client\'s lock is kept for its ticket');
  assert.equal(granted, false);
  ticket.done();
  await next.granted;
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a steal does not start the thief\'s callback while the victim\'s ticket is open', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const [a, b] = [manager(), manager()];
  const victim = hold(a, 'doc');
  const ticket = await lockServer.fence(req('s1', lockHeaders(await victim.granted)));
  const thief = hold(b, 'doc', { steal: true });
  assert.equal((await victim.done).name, 'AbortError');
  let granted = false;
  thief.granted.then(() => { granted = true; });
  await assert.rejects(lockServer.fence(req('s1', { 'weblocks-lock': 'doc', 'weblocks-fencing-token': String(ticket.fencingToken) })), { status: 409 });
  await until(async () => named((await b.query()).held, 'doc').length === 1);
  assert.equal(granted, false);
  ticket.done();
  await thief.granted;
  thief.release();
  victim.release();
  assert.equal((await thief.done).ok, true);
});

test('a ticket never done is bounded by ticketTimeout', async (t) => {
  const { manager, lockServer } = await startServer(t, { ticketTimeout: 100 });
  const [a, b] = [manager(), manager()];
  const first = hold(a, 'doc');
  await lockServer.fence(req('s1', lockHeaders(await first.granted))); // never done
  const next = hold(b, 'doc');
  await until(async () => named((await b.query()).pending, 'doc').length === 1);
  first.release();
  await next.granted;
  next.release();
  assert.equal((await next.done).ok, true);
});

test('a space whose last client has gone is forgotten only after its open tickets: a new client of that space still waits for the ticket', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const only = manager('lonely');
  const h = hold(only, 'doc');
  const ticket = await lockServer.fence(req('lonely', lockHeaders(await h.granted)));
  only.close();
  await until(() => lockServer.stats().sessions === 0, 'the only session ended');
  assert.equal(lockServer.stats().spaces, 1, 'kept for its open ticket');
  const late = manager('lonely');
  const next = hold(late, 'doc');
  await until(async () => named((await late.query()).pending, 'doc').length === 1, 'the newcomer waits behind the ticket\'s lock');
  ticket.done();
  await next.granted;
  next.release();
  await next.done;
  late.close();
  await until(() => lockServer.stats().spaces === 0, 'the idle space is forgotten');
});

test('a thief held back by a ticket and robbed in turn: its request rejects with an AbortError (never hangs); the last thief starts after the ticket', async (t) => {
  const { manager, lockServer } = await startServer(t);
  const [a, b, c] = [manager(), manager(), manager()];
  const victim = hold(a, 'doc');
  const ticket = await lockServer.fence(req('s1', lockHeaders(await victim.granted)));
  const first = hold(b, 'doc', { steal: true });
  assert.equal((await victim.done).name, 'AbortError');
  await until(async () => named((await b.query()).held, 'doc').length === 1, 'the first thief holds in the engine, its grant held back');
  const second = hold(c, 'doc', { steal: true });
  const outcome = await first.done;
  assert.equal(outcome.ok, false);
  assert.equal(outcome.name, 'AbortError');
  ticket.done();
  await second.granted;
  second.release();
  victim.release();
  assert.equal((await second.done).ok, true);
  assert.equal(lockServer.stats().sessions, 3);
});
