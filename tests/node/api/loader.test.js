// The loader's pending navigator.locks (js/browser/pending-locks.js) and its install
// (js/browser/loader.js installWhereNeeded), in Node on a stand-in global: the calls made before
// the rest has loaded reach the real LockManager in the order made, each with its own outcome;
// later calls go straight to it; a rest that cannot be loaded rejects every call, kept or later,
// with one NotSupportedError that is reported once. (In the three engines: tests/browser/loader.spec.js.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingLocks } from '../../../js/browser/pending-locks.js';
import { installWhereNeeded, restFailure } from '../../../js/browser/loader.js';

/** A stand-in LockManager that records what it is asked, in order. */
function recordingManager(calls) {
  return {
    request(name, ...rest) {
      calls.push(`request ${name}`);
      if (typeof name !== 'string') throw new TypeError('not a name');
      return Promise.resolve(`${name} done (${rest.length} more arguments)`);
    },
    query() {
      calls.push('query');
      return Promise.resolve({ held: [], pending: [] });
    },
  };
}

test('calls made before the rest has loaded reach the real LockManager in the order made, each with its own outcome', async () => {
  let load;
  const ready = new Promise((resolve) => { load = resolve; });
  const locks = pendingLocks(ready);
  const calls = [];
  const outcomes = [
    locks.request('a', () => {}),
    locks.query(),
    locks.request(5, () => {}),
    locks.request('b', { mode: 'shared' }, () => {}),
  ].map((promise) => promise.then((value) => value, (error) => `${error.name}: ${error.message}`));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(calls, [], 'nothing is handed over before the rest has loaded');
  load(recordingManager(calls));
  assert.deepEqual(await Promise.all(outcomes), ['a done (1 more arguments)', { held: [], pending: [] }, 'TypeError: not a name', 'b done (2 more arguments)']);
  assert.deepEqual(calls, ['request a', 'query', 'request 5', 'request b']);
  // Once it exists, a call goes straight to it, in the same turn.
  const later = locks.request('c', () => {});
  assert.deepEqual(calls.at(-1), 'request c');
  assert.equal(await later, 'c done (1 more arguments)');
});

test('a rest that cannot be loaded rejects every call, kept and later, with the loader\'s error, reported once', async () => {
  const reported = [];
  const prepared = [];
  const scope = { navigator: {}, reportError: (error) => reported.push(error) };
  let fail;
  const locks = installWhereNeeded({ scope }, () => new Promise((resolve, reject) => { fail = reject; }),
    restFailure('rest.js', 'Serve it.'), (prepareScope) => prepared.push(prepareScope));
  assert.equal(scope.navigator.locks, locks, 'navigator.locks is the pending one at once');
  assert.deepEqual(prepared, [scope], 'what cannot wait ran at once');
  assert.equal(installWhereNeeded({ scope }, () => assert.fail('loaded twice'), restFailure('x', 'y'), () => assert.fail('prepared twice')), locks,
    'a second loader finds the pending one');
  const kept = locks.request('a', () => {}).catch((error) => error);
  await new Promise((resolve) => setTimeout(resolve, 5));
  fail(new Error('it answered 404'));
  const error = await kept;
  assert.equal(error.name, 'NotSupportedError');
  assert.equal(error.message, 'Web Locks: the rest of the polyfill, rest.js, could not be loaded (it answered 404). Serve it.');
  assert.equal(await locks.query().catch((later) => later), error, 'a later call rejects with the same error');
  assert.deepEqual(reported, [error]);
});

test('where navigator.locks works (and nothing is forced) the loader leaves it and loads nothing', () => {
  const native = { request() {}, query() {} };
  const scope = { navigator: { locks: native } };
  assert.equal(installWhereNeeded({ scope }, () => assert.fail('loaded'), restFailure('x', 'y'), () => assert.fail('prepared')), null);
  assert.equal(scope.navigator.locks, native);
  // Forced: installed over it.
  let loaded = 0;
  const forced = installWhereNeeded({ scope, force: true }, (options) => { loaded++; assert.equal(options.force, true); return Promise.resolve(native); }, restFailure('x', 'y'), () => {});
  assert.notEqual(forced, native);
  assert.equal(scope.navigator.locks, forced);
  return Promise.resolve().then(() => Promise.resolve()).then(() => assert.equal(loaded, 1));
});
