// WebIDL behaviour of LockManager and Lock, and request() steps 1-9 (errors before any queueing).
import { ok, equal, deepEqual, rejects } from '../assert.js';
import { uniqueName } from '../handle.js';

const never = () => { throw new Error('the callback must not be called'); };

/**
 * Every host runs the cases on its LockManager and Lock objects (each host makes them its own way)
 * and the one whose outcome crosses the host's transport (a name kept as given, lone surrogates
 * and all). The others check js/api's argument conversions and errors before anything is queued:
 * the same code on every host of one JavaScript runtime, so each runtime runs them on one host and
 * the others say `host.webidl = false` (docs/internals.md, "The test command").
 */
export function defineWebIdlCases(runner, host) {
  const locks = host.locks;
  const test = runner.test;
  // A host-independent case: skipped where host.webidl is false.
  const argumentCase = (name, fn) => { if (host.webidl !== false) runner.test(name, fn); };

  test('LockManager and Lock cannot be constructed by script', async () => {
    const LockManager = locks.constructor;
    equal(LockManager.name, 'LockManager');
    let threw = null;
    try { new LockManager(); } catch (e) { threw = e; }
    ok(threw instanceof TypeError, 'new LockManager() throws a TypeError');
    let Lock;
    await locks.request(uniqueName('ctor'), (lock) => { Lock = lock.constructor; });
    equal(Lock.name, 'Lock');
    threw = null;
    try { new Lock(); } catch (e) { threw = e; }
    ok(threw instanceof TypeError, 'new Lock() throws a TypeError');
  });

  test('LockManager and Lock have WebIDL-shaped members and Symbol.toStringTag', async () => {
    const proto = Object.getPrototypeOf(locks);
    equal(Object.prototype.toString.call(locks), '[object LockManager]');
    equal(proto.request.length, 2, 'request.length');
    equal(proto.query.length, 0, 'query.length');
    for (const key of ['request', 'query']) {
      const desc = Object.getOwnPropertyDescriptor(proto, key);
      ok(desc.enumerable && desc.writable && desc.configurable, `${key} is an enumerable, writable, configurable operation`);
    }
    const tag = Object.getOwnPropertyDescriptor(proto, Symbol.toStringTag);
    deepEqual({ value: tag.value, writable: tag.writable, enumerable: tag.enumerable, configurable: tag.configurable },
      { value: 'LockManager', writable: false, enumerable: false, configurable: true });
    const name = uniqueName('shape');
    await locks.request(name, { mode: 'shared' }, (lock) => {
      const lockProto = Object.getPrototypeOf(lock);
      equal(Object.prototype.toString.call(lock), '[object Lock]');
      for (const key of ['name', 'mode']) {
        const desc = Object.getOwnPropertyDescriptor(lockProto, key);
        ok(typeof desc.get === 'function' && desc.set === undefined && desc.enumerable && desc.configurable,
          `${key} is a readonly attribute on the prototype`);
        ok(!Object.prototype.hasOwnProperty.call(lock, key), `${key} is not an own property`);
        let threw = null;
        try { desc.get.call({}); } catch (e) { threw = e; }
        ok(threw instanceof TypeError, `the ${key} getter throws a TypeError on a non-Lock`);
      }
      equal(lock.name, name);
      equal(lock.mode, 'shared');
      let threw = null;
      try { lock.name = 'changed'; } catch (e) { threw = e; }
      ok(threw instanceof TypeError, 'assigning a readonly attribute throws in strict code');
      equal(lock.name, name, 'assigning name does not change it');
    });
  });

  argumentCase('request() and query() called on an object that is not a LockManager reject with a TypeError', async () => {
    const proto = Object.getPrototypeOf(locks);
    await rejects(proto.request.call({}, 'x', never), { name: 'TypeError' }, 'request');
    await rejects(proto.query.call({}), { name: 'TypeError' }, 'query');
  });

  argumentCase('request() with fewer than two arguments rejects with a TypeError', async () => {
    await rejects(locks.request(), { name: 'TypeError' }, 'no arguments');
    await rejects(locks.request(uniqueName('few')), { name: 'TypeError' }, 'a name only');
  });

  argumentCase('request() with a callback that is not callable rejects with a TypeError', async () => {
    const name = uniqueName('callable');
    await rejects(locks.request(name, {}), { name: 'TypeError' }, 'options in the callback position');
    await rejects(locks.request(name, {}, 'not a function'), { name: 'TypeError' }, 'a string callback');
    await rejects(locks.request(name, () => {}, undefined), { name: 'TypeError' }, 'undefined as the last argument');
    const state = await locks.query();
    ok(!state.held.concat(state.pending).some((info) => info.name === name), 'nothing was requested');
  });

  argumentCase('request() with an unknown mode, or options that are not an object, rejects with a TypeError', async () => {
    const name = uniqueName('mode');
    await rejects(locks.request(name, { mode: 'Exclusive' }, never), { name: 'TypeError' }, 'a wrongly cased mode');
    await rejects(locks.request(name, { mode: 'read' }, never), { name: 'TypeError' }, 'an unknown mode');
    await rejects(locks.request(name, 'shared', never), { name: 'TypeError' }, 'a string as options');
    await rejects(locks.request(name, 5, never), { name: 'TypeError' }, 'a number as options');
    // undefined and null options are the defaults.
    equal(await locks.request(name, undefined, (lock) => lock.mode), 'exclusive');
    equal(await locks.request(name, null, (lock) => lock.mode), 'exclusive');
    // The mode is converted with ToString first.
    equal(await locks.request(name, { mode: { toString: () => 'shared' } }, (lock) => lock.mode), 'shared');
  });

  argumentCase('request() with a signal that is not an AbortSignal rejects with a TypeError', async () => {
    const name = uniqueName('signal');
    await rejects(locks.request(name, { signal: {} }, never), { name: 'TypeError' }, 'a plain object');
    await rejects(locks.request(name, { signal: null }, never), { name: 'TypeError' }, 'null');
    await rejects(locks.request(name, { signal: new AbortController() }, never), { name: 'TypeError' }, 'a controller');
  });

  argumentCase('request() reads the options members once each, in the order ifAvailable, mode, signal, steal', async () => {
    const reads = [];
    const options = {};
    for (const key of ['steal', 'signal', 'mode', 'ifAvailable']) {
      Object.defineProperty(options, key, { get() { reads.push(key); return undefined; } });
    }
    await locks.request(uniqueName('order'), options, () => {});
    deepEqual(reads, ['ifAvailable', 'mode', 'signal', 'steal']);
  });

  test('request() converts the name as a DOMString, before the options, and keeps lone surrogates', async () => {
    const order = [];
    const name = { toString() { order.push('name'); return 'object-name'; } };
    const options = { get mode() { order.push('mode'); return 'exclusive'; } };
    equal(await locks.request(name, options, (lock) => lock.name), 'object-name');
    deepEqual(order, ['name', 'mode']);
    equal(await locks.request(42, (lock) => lock.name), '42');
    equal(await locks.request(null, (lock) => lock.name), 'null');
    equal(await locks.request(undefined, (lock) => lock.name), 'undefined');
    equal(await locks.request('', (lock) => lock.name), '', 'the empty name is a name');
    const lone = 'a\uD800b\uDFFF';
    const seen = await locks.request(lone, async (lock) => {
      const state = await locks.query();
      return { lockName: lock.name, held: state.held.some((info) => info.name === lone) };
    });
    deepEqual(seen, { lockName: lone, held: true });
    await rejects(locks.request(Symbol('s'), never), { name: 'TypeError' }, 'a Symbol name');
  });

  argumentCase('a name starting with a hyphen is rejected with a NotSupportedError, other hyphens are fine', async () => {
    await rejects(locks.request('-reserved', never), { name: 'NotSupportedError', instanceOf: DOMException });
    await rejects(locks.request({ toString: () => '-x' }, never), { name: 'NotSupportedError' }, 'after conversion');
    equal(await locks.request(`a-${uniqueName('hyphen')}`, () => 'fine'), 'fine');
  });

  argumentCase('every NotSupportedError option combination of request() rejects without calling back or queueing', async () => {
    const name = uniqueName('combos');
    const signal = new AbortController().signal;
    const combos = [
      [{ steal: true, ifAvailable: true }, 'steal with ifAvailable'],
      [{ steal: true, mode: 'shared' }, 'steal with shared'],
      [{ steal: true, signal }, 'signal with steal'],
      [{ ifAvailable: true, signal }, 'signal with ifAvailable'],
    ];
    for (const [options, label] of combos) {
      await rejects(locks.request(name, options, never), { name: 'NotSupportedError', instanceOf: DOMException }, label);
    }
    const state = await locks.query();
    ok(!state.held.concat(state.pending).some((info) => info.name === name), 'nothing was requested');
  });

  argumentCase('an already-aborted signal rejects with its reason and never calls back', async () => {
    const name = uniqueName('preaborted');
    const plain = new AbortController();
    plain.abort();
    const error = await rejects(locks.request(name, { signal: plain.signal }, never), { name: 'AbortError', instanceOf: DOMException });
    equal(error, plain.signal.reason, 'the rejection is signal.reason itself');
    const custom = new AbortController();
    const reason = new Error('custom reason');
    custom.abort(reason);
    const got = await rejects(locks.request(name, { signal: custom.signal }, never), {}, 'a custom reason');
    equal(got, reason);
    const state = await locks.query();
    ok(!state.held.concat(state.pending).some((info) => info.name === name), 'nothing was requested');
  });
}
