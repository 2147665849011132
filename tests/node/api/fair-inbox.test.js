// The hub's fair inbox (js/hub/fair-inbox.js) handles filed messages in the order they arrived,
// across connections, and still gives a flooding connection no more than its share of a pass.
// Before issue 46 it served the inboxes one after the other: three frames' interleaved requests
// were queued frame by frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairInbox } from '../../../js/hub/fair-inbox.js';

function inbox(options = {}) {
  const handled = [];
  let clock = 0;
  const fair = new FairInbox((conn, item) => handled.push(`${conn.name}${item.n}`), { now: () => clock, ...options });
  fair.wake = () => {}; // passes are run by the test
  fair.wake.close = () => {};
  return { fair, handled, tick: (ms) => { clock += ms; } };
}

test('messages filed by several connections are handled in the order they arrived', () => {
  const { fair, handled } = inbox();
  const [a, b, c] = ['a', 'b', 'c'].map((name) => ({ name }));
  fair.serving = true; // a message being handled: what arrives now is filed
  for (const [conn, n] of [[a, 1], [b, 1], [c, 1], [b, 2], [a, 2], [c, 2], [a, 3]]) fair.add(conn, { n });
  fair.serving = false;
  fair.pass();
  assert.deepEqual(handled, ['a1', 'b1', 'c1', 'b2', 'a2', 'c2', 'a3']);
});

test('a connection with more than its quantum waiting gets its quantum per round, and the others their turn in arrival order', () => {
  const { fair, handled, tick } = inbox({ quantum: 2, budget: 6 });
  const flood = { name: 'f' };
  const honest = { name: 'h' };
  fair.serving = true;
  for (let n = 1; n <= 5; n++) fair.add(flood, { n });
  fair.add(honest, { n: 1 });
  fair.add(flood, { n: 6 });
  fair.add(honest, { n: 2 });
  fair.serving = false;
  fair.handle = (conn, item) => { handled.push(`${conn.name}${item.n}`); tick(1); };
  fair.pass();
  // Round 1: f1 f2 (the flood's quantum), then h1 h2 (the honest one's, though h2 came after f6);
  // round 2: f3 f4; the budget (6 ms) ends the pass.
  assert.deepEqual(handled, ['f1', 'f2', 'h1', 'h2', 'f3', 'f4']);
  fair.pass();
  assert.deepEqual(handled.slice(6), ['f5', 'f6']);
});
