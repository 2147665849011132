// observeLocks and deadlocks on the in-context engine, beyond the behavioural suite: the warning a
// deadlocked context writes, a wait made after an await inside the callback (where the async
// context is known), and what a gap in the records is replaced by.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createLocalLockManager } from '../../../js/node/index.js';
import { differences } from '../../../js/api/observe-locks.js';
import { heldContextKnown } from '../../../js/api/async-context.js';

test('a context in a certain deadlock writes a WEBLOCKS_DEADLOCK process warning naming the lock and the context', async () => {
  const locks = createLocalLockManager();
  const warned = once(process, 'warning');
  const outer = new AbortController();
  locks.request('self', () => locks.request('self', { signal: outer.signal }, () => {})).catch(() => {});
  const [warning] = await warned;
  assert.equal(warning.code, 'WEBLOCKS_DEADLOCK');
  assert.match(warning.message, /holds "self" and, inside that lock's callback, waits for "self"/);
  outer.abort();
});

test('a request made after an await inside the callback is known to wait inside its lock where the async context is known', { skip: !heldContextKnown && 'no AsyncContext here, and AsyncLocalStorage is used on Node 24 and later only' }, async () => {
  const locks = createLocalLockManager({ deadlock: 'reject' });
  const outcome = await locks.request('after-await', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return locks.request('after-await', () => 'never').then(() => 'granted', (error) => error.name);
  });
  assert.equal(outcome, 'OperationError');
});

test('the reject option rejects the closing request with an OperationError and leaves the lock space as it was', async () => {
  const locks = createLocalLockManager({ deadlock: 'reject' });
  const seen = [];
  const stop = locks.observeLocks((snapshot, changes) => seen.push(...changes));
  const outcome = await locks.request('x', () => locks.request('x', () => 'never').then(() => 'granted', (error) => `${error.name}: ${error.message}`));
  assert.match(outcome, /^OperationError: The request would close a deadlock: context .* holds "x" and, inside that lock's callback, waits for "x"\.$/);
  assert.deepEqual((await locks.query()).pending, []);
  stop();
});

test('a gap in the records is replaced by the changes the snapshots around it prove, and nothing that may not have happened', () => {
  const info = (name, clientId, mode = 'exclusive') => ({ name, mode, clientId });
  const before = { held: [info('a', 'A'), info('b', 'B')], pending: [info('a', 'C'), info('c', 'D')] };
  const after = { held: [info('a', 'C'), info('e', 'E')], pending: [info('d', 'F')] };
  // a by A and b by B are gone (released or stolen?), c by D is gone (aborted, or granted and
  // released?): not reported. A Firefox run of the suite's burst case saw an 'aborted' for a request
  // that had been granted and released in a gap.
  assert.deepEqual(differences(before, after).map((change) => `${change.type} ${change.name} ${change.clientId}`), [
    'granted a C', 'requested e E', 'granted e E', 'requested d F',
  ]);
});

test('observeLocks is never a member of navigator.locks or of LockManager.prototype', async () => {
  await import('../../../js/node/register.js');
  const { observeLocks } = await import('../../../js/node/index.js');
  assert.equal(typeof observeLocks, 'function');
  assert.equal('observeLocks' in globalThis.navigator.locks, false);
  assert.equal(Object.hasOwn(globalThis.LockManager.prototype, 'observeLocks'), false);
  assert.equal(typeof createLocalLockManager().observeLocks, 'function', 'a manager the script creates has its own');
});
