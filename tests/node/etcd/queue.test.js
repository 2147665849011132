// The pure parts of the etcd lock space (js/etcd/queue.js) and the tests' fenced resource.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeName, decodeName, orderQueue, heldCount, KeyLayout, prefixEnd } from '../../../js/etcd/queue.js';
import { FencedResource } from './support/fenced-resource.js';

test('every lock name gets its own key prefix, lone surrogates, slashes and percent signs included', () => {
  const names = ['a', 'ab', 'a/b', 'a%b', '%0061', 'a\u0000', '\ud800', '\udc00', '\ud800\udc00', '\u{1f512}', 'é', '', ' ', '-x'];
  const layout = new KeyLayout('ns/');
  const prefixes = names.map((name) => layout.namePrefix(name));
  assert.equal(new Set(prefixes).size, names.length);
  for (const a of prefixes) for (const b of prefixes) if (a !== b) assert.ok(!b.startsWith(a), `${a} is a prefix of ${b}`);
  for (const name of names) {
    assert.equal(decodeName(encodeName(name)), name);
    assert.equal(layout.nameOfKey(layout.requestKey(name, 'shared', 'client', 1)), name);
  }
});

test('the queue is a steal first, then request order; the held requests are its head by the spec\'s grant rule', () => {
  const x = (create, preempt = false) => ({ key: `x${create}`, create, mode: 'exclusive', preempt });
  const s = (create) => ({ key: `s${create}`, create, mode: 'shared', preempt: false });
  assert.deepEqual(orderQueue([s(5), x(3), x(9, true), s(4)]).map((e) => e.key), ['x9', 'x3', 's4', 's5']);
  assert.equal(heldCount(orderQueue([])), 0);
  assert.equal(heldCount(orderQueue([x(3), s(4)])), 1, 'an exclusive head holds alone');
  assert.equal(heldCount(orderQueue([s(2), s(3), x(4), s(5)])), 2, 'shared requests before the first exclusive one hold together');
  assert.equal(heldCount(orderQueue([s(2), x(9, true)])), 1, 'a steal holds alone, ahead of earlier shared holders');
});

test('prefixEnd is the first key after every key with the prefix', () => {
  assert.deepEqual(prefixEnd('ab'), Buffer.from('ac'));
  assert.deepEqual(prefixEnd('ns/n/a/'), Buffer.from('ns/n/a0'));
});

test('the fenced resource refuses lower tokens, and its check finds interleaved holders and shared tokens', () => {
  const ok = new FencedResource();
  assert.equal(ok.write('n', 'A', 5), true);
  assert.equal(ok.write('n', 'A', 5), true);
  assert.equal(ok.write('n', 'B', 7), true);
  assert.equal(ok.write('n', 'A', 5), false, 'a lower token is refused');
  assert.deepEqual(ok.check(), { violations: [], writes: 3, refused: 1, names: 1 });

  const interleaved = new FencedResource();
  interleaved.write('n', 'A', 5);
  interleaved.write('n', 'B', 5);
  interleaved.write('n', 'A', 5);
  assert.equal(interleaved.check().violations.length, 3, 'the same token from two holders, and A after B');
});
