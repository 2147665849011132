// Frames that cross: a client's frames read in one turn of the server while the lock space's
// answer to the first is still on its way (js/server/session.js, the backend's listener). Raw
// frames in one write, so the server reads them together; the outcome is checked by what the
// client is told and by the lock's next holder, never by time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lockHeaders } from '../../../js/remote/node.js';
import { startServer, until, hold, named, rawClient } from './support.js';

// A lock that never passes on fails its test instead of hanging the run.
const LIVE = { timeout: 30_000 };

test('a request and its abort read in one turn, the grant already on its way: the client is told aborted, never granted, and the lock passes to the next waiter', LIVE, async (t) => {
  const { url, manager } = await startServer(t);
  const raw = await rawClient(url());
  // First a lock granted and released, so that the space's engine is loaded: the next request
  // is then granted at once, its grant on its way when the abort is read.
  raw.sendTogether({ t: 'req', id: 1, name: 'warm', mode: 'exclusive', wait: 'wait' });
  await raw.frameFor('granted', 1);
  raw.sendTogether({ t: 'rel', id: 1 });
  await raw.frameFor('released', 1);
  raw.sendTogether(
    { t: 'req', id: 2, name: 'x', mode: 'exclusive', wait: 'wait' },
    { t: 'abort', id: 2 },
  );
  const aborted = await raw.frameFor('aborted', 2);
  assert.equal(aborted.removed, true);
  const other = manager();
  const next = hold(other, 'x');
  await next.granted; // the lock granted to the aborted request was released, untold
  assert.equal(raw.frames.some((f) => f.t === 'granted' && f.id === 2), false, 'the aborted request was never said granted');
  const state = await other.query();
  assert.equal(named(state.held, 'x').length, 1);
  next.release();
  assert.equal((await next.done).ok, true);
  raw.socket.close();
});

test('a release that reaches the server after a steal of its lock: the holder is told the lock was lost and no longer held, and the thief keeps it', LIVE, async (t) => {
  const { url, manager } = await startServer(t);
  const raw = await rawClient(url());
  raw.sendTogether({ t: 'req', id: 1, name: 'y', mode: 'exclusive', wait: 'wait' });
  await raw.frameFor('granted', 1);
  const thief = manager();
  const stolen = hold(thief, 'y', { steal: true });
  await stolen.granted;
  raw.sendTogether({ t: 'rel', id: 1 });
  const lost = await raw.frameFor('lost', 1);
  assert.match(lost.why, /stolen/);
  const released = await raw.frameFor('released', 1);
  assert.equal(released.held, false);
  const state = await thief.query();
  assert.equal(named(state.held, 'y').length, 1, 'the thief still holds it: the late release took nothing');
  stolen.release();
  assert.equal((await stolen.done).ok, true);
  raw.socket.close();
});

test('a client that closes with a lock held and a wait queued behind another client: its lock passes, its wait never is granted', LIVE, async (t) => {
  const { url, manager } = await startServer(t);
  const raw = await rawClient(url());
  raw.sendTogether({ t: 'req', id: 1, name: 'held', mode: 'exclusive', wait: 'wait' });
  await raw.frameFor('granted', 1);
  const other = manager();
  const blocker = hold(other, 'queued');
  await blocker.granted;
  const behind = hold(other, 'held');
  raw.sendTogether({ t: 'req', id: 2, name: 'queued', mode: 'exclusive', wait: 'wait' });
  // (the raw client's wait is queued once query() shows it)
  for (;;) {
    const state = await other.query();
    if (named(state.pending, 'queued').length === 1 && named(state.pending, 'held').length === 1) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  raw.socket.close();
  await behind.granted;
  blocker.release();
  assert.equal((await blocker.done).ok, true);
  const after = await other.query();
  assert.deepEqual(named(after.pending, 'queued'), [], 'the closed client\'s wait is gone');
  behind.release();
  assert.equal((await behind.done).ok, true);
});

test('a lock stolen while its release waits for an open fence ticket: the holder is told it was lost, then released, never both held', LIVE, async (t) => {
  const { url, manager, lockServer } = await startServer(t);
  const raw = await rawClient(url());
  raw.sendTogether({ t: 'req', id: 1, name: 'doc', mode: 'exclusive', wait: 'wait' });
  const granted = await raw.frameFor('granted', 1);
  const ticket = await lockServer.fence({ url: '/write?space=s1', headers: lockHeaders({ name: 'doc', mode: 'exclusive', fencingToken: granted.fence }) });
  raw.sendTogether({ t: 'rel', id: 1 });
  // The release is on record (fence() refuses the token) but waits for the ticket.
  await until(() => lockServer.fence({ url: '/write?space=s1', headers: lockHeaders({ name: 'doc', mode: 'exclusive', fencingToken: granted.fence }) }).then((early) => { early.done(); return false; }, (e) => e.status === 409));
  const thief = manager();
  const stolen = hold(thief, 'doc', { steal: true });
  const lost = await raw.frameFor('lost', 1);
  assert.match(lost.why, /stolen/);
  const released = await raw.frameFor('released', 1);
  assert.equal(released.held, false);
  ticket.done(); // the thief starts after the ticket of the lock it took
  await stolen.granted;
  stolen.release();
  assert.equal((await stolen.done).ok, true);
  raw.socket.close();
});
