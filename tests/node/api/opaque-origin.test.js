// A context whose origin is opaque (a sandboxed frame without allow-same-origin: self.origin is
// "null") has no lock space: request() and query() reject with a SecurityError (spec request()
// step 4, query() step 2), decided by the LockManager before anything is started, so neither the
// hub's SharedWorker nor the Trusted Types policy that would make its URL (which refuses an opaque
// origin with a TypeError) is ever reached. The browser case is tests/browser/deploy.spec.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createContextLocks } from '../../../js/browser/context.js';
import { fakeWindow } from './fake-window.js';

function opaqueWindow() {
  const started = [];
  class SharedWorker {
    constructor(url) { started.push(`SharedWorker ${url}`); throw new TypeError('not expected'); }
  }
  const trustedTypes = { createPolicy(name) { started.push(`policy ${name}`); throw new TypeError('not expected'); } };
  const { scope, finishParsing } = fakeWindow(SharedWorker, { origin: 'null', trustedTypes, readyState: 'loading' });
  return { scope, finishParsing, started };
}

const rejection = (promise) => promise.then(() => 'resolved', (error) => error.name);

test('in an opaque origin, request() and query() reject with a SecurityError, before the name is checked, and nothing is started', async () => {
  const { scope, finishParsing, started } = opaqueWindow();
  const { locks } = createContextLocks({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  finishParsing(); // a window's early port would be made now
  await Promise.resolve();
  let called = false;
  assert.equal(await rejection(locks.request('x', () => { called = true; })), 'SecurityError');
  assert.equal(await rejection(locks.request('x', { ifAvailable: true }, () => { called = true; })), 'SecurityError');
  assert.equal(await rejection(locks.request('-reserved', () => { called = true; })), 'SecurityError', 'step 4 comes before step 5');
  assert.equal(await rejection(locks.query()), 'SecurityError');
  assert.equal(called, false);
  assert.deepEqual(started, [], 'no hub, no policy');
});

test('arguments are still converted first: a missing callback is a TypeError in an opaque origin too', async () => {
  const { scope } = opaqueWindow();
  const { locks } = createContextLocks({ hubUrl: '/weblocks/weblocks-hub.js', scope });
  assert.equal(await rejection(locks.request('x')), 'TypeError');
});
