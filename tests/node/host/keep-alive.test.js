// The keep-alive of a thread (js/node/keep-alive.js): which Deno versions need the ticking
// interval (Atomics.waitAsync callbacks that do not run otherwise: measured never on 2.4.0-2.7.5,
// at once on 2.7.6 and later; tests/runtimes/run.mjs runs the suite on Deno 2.6.0 with it), and that
// a thread with nothing queued keeps no timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitAsyncTickMs, ThreadKeepAlive } from '../../../js/node/keep-alive.js';

test('the ticking interval is for Deno before 2.7.6 only', () => {
  for (const deno of ['2.6.0', '2.7.0', '2.7.5']) assert.equal(typeof waitAsyncTickMs({ deno, node: '20.11.1' }), 'number', deno);
  for (const deno of ['2.7.6', '2.8.0', '2.9.6', '3.0.0']) assert.equal(waitAsyncTickMs({ deno, node: '20.11.1' }), null, deno);
  assert.equal(waitAsyncTickMs({ node: '24.11.1' }), null);
  assert.equal(waitAsyncTickMs({ bun: '1.4.5', node: '24.3.0' }), null);
});

test('alive while a request is queued; ticking, unref\'d, while only waiting where needed; no timer otherwise', () => {
  const plain = new ThreadKeepAlive({ tickMs: null });
  plain.update({ alive: true, waiting: true });
  assert.equal(plain.state, 'alive');
  assert.equal(plain.timer.hasRef(), true);
  plain.update({ alive: false, waiting: true });
  assert.equal(plain.state, 'none');
  assert.equal(plain.timer, null);
  const ticking = new ThreadKeepAlive({ tickMs: 4 });
  ticking.update({ alive: false, waiting: true });
  assert.equal(ticking.state, 'ticking');
  assert.equal(ticking.timer.hasRef(), false);
  ticking.stop();
  assert.equal(ticking.timer, null);
});
