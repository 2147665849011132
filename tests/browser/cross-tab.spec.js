// Tabs of one origin share one lock space through the hub (spec: the lock manager of an origin's
// storage bucket is shared by every agent). Each tab is a separate renderer; ordering is proven by
// the events (grants, query() snapshots), never by sleeps.
import { test, expect, call, until, named } from './support/fixtures.js';

test.describe('tabs contending', () => {
  test('an exclusive lock is granted to waiting tabs one at a time, in the order they asked (FIFO)', async ({ openTab }) => {
    const [a, b, c, d] = await Promise.all([openTab(), openTab(), openTab(), openTab()]);
    const held = await call(a, 'request', 'fifo');
    await call(a, 'granted', held);
    const order = [];
    const waiters = [];
    for (const [tab, label] of [[b, 'b'], [c, 'c'], [d, 'd']]) {
      const id = await call(tab, 'request', 'fifo');
      // Proof that this request is queued before the next tab asks.
      await until(a, (s) => named(s.pending, 'fifo').length === waiters.length + 1, `${label} queued`);
      waiters.push([tab, label, id]);
    }
    await call(a, 'release', held);
    for (const [tab, label, id] of waiters) {
      const granted = await call(tab, 'granted', id);
      order.push(label);
      const state = await call(tab, 'query');
      expect(named(state.held, 'fifo'), `${label} holds alone`).toHaveLength(1);
      expect(granted.mode).toBe('exclusive');
      await call(tab, 'release', id);
    }
    expect(order).toEqual(['b', 'c', 'd']);
    for (const [tab, , id] of waiters) expect(await call(tab, 'settled', id)).toMatchObject({ ok: true });
  });

  test('shared locks are held by several tabs at once; an exclusive request waits for all of them and a later shared request waits behind it', async ({ openTab }) => {
    const [a, b, c, d] = await Promise.all([openTab(), openTab(), openTab(), openTab()]);
    const sa = await call(a, 'request', 'rw', { mode: 'shared' });
    const sb = await call(b, 'request', 'rw', { mode: 'shared' });
    await Promise.all([call(a, 'granted', sa), call(b, 'granted', sb)]);
    const x = await call(c, 'request', 'rw', { mode: 'exclusive' });
    await until(a, (s) => named(s.pending, 'rw').length === 1, 'exclusive queued');
    const sd = await call(d, 'request', 'rw', { mode: 'shared' });
    const state = await until(a, (s) => named(s.pending, 'rw').length === 2, 'late shared queued');
    expect(named(state.held, 'rw').map((l) => l.mode)).toEqual(['shared', 'shared']);
    expect(named(state.pending, 'rw').map((l) => l.mode)).toEqual(['exclusive', 'shared']);
    await call(a, 'release', sa);
    expect(await call(c, 'state', x)).toBe('pending');
    await call(b, 'release', sb);
    await call(c, 'granted', x);
    expect(await call(d, 'state', sd)).toBe('pending');
    await call(c, 'release', x);
    await call(d, 'granted', sd);
    await call(d, 'release', sd);
    expect(await call(d, 'settled', sd)).toMatchObject({ ok: true });
  });

  test('a steal from another tab rejects the holder tab\'s promise with an AbortError and grants the thief at once', async ({ openTab }) => {
    const [a, b] = await Promise.all([openTab(), openTab()]);
    const victim = await call(a, 'request', 'steal-me');
    await call(a, 'granted', victim);
    const thief = await call(b, 'request', 'steal-me', { steal: true });
    await call(b, 'granted', thief);
    const outcome = await call(a, 'settled', victim);
    expect(outcome).toMatchObject({ ok: false, name: 'AbortError' });
    const state = await call(a, 'query');
    expect(named(state.held, 'steal-me')).toHaveLength(1);
    // The victim's callback is still running: releasing it later must not release the thief's lock.
    await call(a, 'release', victim);
    const after = await call(b, 'query');
    expect(named(after.held, 'steal-me')).toHaveLength(1);
    await call(b, 'release', thief);
    expect(await call(b, 'settled', thief)).toMatchObject({ ok: true });
  });

  test('ifAvailable in one tab gets null while another tab holds the lock, and the lock once it is free', async ({ openTab }) => {
    const [a, b] = await Promise.all([openTab(), openTab()]);
    const held = await call(a, 'request', 'maybe');
    await call(a, 'granted', held);
    const miss = await call(b, 'request', 'maybe', { ifAvailable: true });
    expect(await call(b, 'granted', miss)).toBeNull();
    expect(await call(b, 'settled', miss)).toMatchObject({ ok: true, value: 'no-lock' });
    const state = await call(b, 'query');
    expect(named(state.pending, 'maybe'), 'the queue is untouched').toHaveLength(0);
    await call(a, 'release', held);
    await call(a, 'settled', held);
    const hit = await call(b, 'request', 'maybe', { ifAvailable: true });
    expect(await call(b, 'granted', hit)).toMatchObject({ name: 'maybe' });
    await call(b, 'release', hit);
  });

  test('aborting a request queued behind another tab rejects it with the signal\'s AbortError and takes it out of the queue', async ({ openTab }) => {
    const [a, b, c] = await Promise.all([openTab(), openTab(), openTab()]);
    const held = await call(a, 'request', 'abortable');
    await call(a, 'granted', held);
    const doomed = await call(b, 'request', 'abortable', { signal: true });
    await until(a, (s) => named(s.pending, 'abortable').length === 1, 'b queued');
    const next = await call(c, 'request', 'abortable');
    await until(a, (s) => named(s.pending, 'abortable').length === 2, 'c queued');
    await call(b, 'abort', doomed);
    expect(await call(b, 'settled', doomed)).toMatchObject({ ok: false, name: 'AbortError' });
    await until(a, (s) => named(s.pending, 'abortable').length === 1, 'b left the queue');
    await call(a, 'release', held);
    await call(c, 'granted', next);
    expect(await call(b, 'state', doomed)).toBe('settled');
    await call(c, 'release', next);
  });

  test('query() from any tab lists every tab\'s and worker\'s locks with distinct clientIds', async ({ openTab }) => {
    const [a, b] = await Promise.all([openTab(), openTab()]);
    const w = await call(b, 'spawn', '/tests/browser/pages/worker.js');
    // a's grant first: two tabs' requests reach the hub on two ports, in no guaranteed order,
    // and the check below expects a's lock first in the held list.
    const la = await call(a, 'request', 'listed', { mode: 'shared' });
    await call(a, 'granted', la);
    const lb = await call(b, 'request', 'listed', { mode: 'shared' });
    await call(b, 'granted', lb);
    const lw = await call(b, [w], 'request', 'listed', { mode: 'shared' });
    await call(b, [w], 'granted', lw);
    const x = await call(a, 'request', 'listed');
    const views = [
      await until(a, (s) => named(s.pending, 'listed').length === 1, 'exclusive queued'),
      await call(b, 'query'),
      await call(b, [w], 'query'),
    ];
    for (const view of views) {
      const held = named(view.held, 'listed');
      expect(held.map((l) => l.mode)).toEqual(['shared', 'shared', 'shared']);
      expect(new Set(held.map((l) => l.clientId)).size).toBe(3);
      expect(named(view.pending, 'listed')).toEqual([{ name: 'listed', mode: 'exclusive', clientId: named(view.held, 'listed')[0].clientId }]);
    }
    for (const [tab, path, id] of [[a, [], la], [b, [], lb], [b, [w], lw]]) await call(tab, path, 'release', id);
    await call(a, 'granted', x);
    await call(a, 'release', x);
  });
});
