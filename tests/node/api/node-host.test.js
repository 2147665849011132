// The Node host beyond the shared suite: nested threads that die with their parent, the preload
// (--import register), the polyfill on Node versions with and without a built-in, and the
// in-context fallback.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { locks, createLocalLockManager, LockManager, Lock } from '../../../js/node/index.js';
import { requestHandle, uniqueName } from '../suite/handle.js';
import { eventually } from './until.js';
import { builtinKnownDefective } from '../../../js/node/builtin-policy.js';

const fixture = (name) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));

function run(args, options = {}) {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: root, timeout: 60_000, ...options }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

async function pendingCount(name) {
  return (await locks.query()).pending.filter((info) => info.name === name).length;
}

describe('threads that die with their parent', { concurrency: 1 }, () => {
  for (const how of ['terminate', 'exit', 'crash']) {
    test(`a lock held by a grandchild thread is released when its parent thread ends by ${how}`, async () => {
      const name = uniqueName(`nested-${how}`);
      const parent = new Worker(fixture('nested-parent.js'), { workerData: { name } });
      parent.on('error', () => {}); // the 'crash' ending throws on purpose
      const exited = new Promise((resolve) => parent.once('exit', resolve));
      const report = await new Promise((resolve) => parent.once('message', resolve));
      assert.equal(report.held, name);
      const state = await locks.query();
      assert.equal(state.held.filter((info) => info.name === name).length, 1, 'the grandchild holds it');
      const waiter = requestHandle(locks, name);
      assert.equal(await pendingCount(name), 1);
      const start = performance.now();
      if (how === 'terminate') await parent.terminate();
      else parent.postMessage(how);
      assert.deepEqual(await waiter.granted, { name, mode: 'exclusive' });
      console.log(`# parent ended by ${how}: the waiter was granted the grandchild's lock after ${(performance.now() - start).toFixed(2)} ms`);
      await exited;
      waiter.release();
      await waiter.settled;
    });
  }
});

describe('terminate() during engine calls', () => {
  test('terminating threads that are inside engine calls never stalls the other threads', { timeout: 90_000 }, async () => {
    for (let round = 0; round < 24; round++) {
      const prefix = uniqueName(`busy-${round}`);
      const workers = [0, 1].map((i) => new Worker(fixture('busy-in-engine.js'), { workerData: { prefix: `${prefix}-${i}`, count: 8 } }));
      await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
      const waiter = requestHandle(locks, `${prefix}-0-7`);
      // Let them run a little (a random moment inside their loops), then terminate both.
      await new Promise((resolve) => setTimeout(resolve, round % 4));
      await Promise.all(workers.map((worker) => worker.terminate()));
      assert.deepEqual(await waiter.granted, { name: `${prefix}-0-7`, mode: 'exclusive' }, `round ${round}`);
      waiter.release();
      await waiter.settled;
      // The other thread's locks go once it is closed too (js/node/close-gone.js: only once the kernel
      // confirms it stopped, and a close that meets the engine's mutex held is tried again a turn
      // later), which may come after the waiter's grant: asserted to come, not to have come.
      await eventually(async () => (await locks.query()).held.every((info) => !info.name.startsWith(prefix)), `round ${round}: every lock of the dead threads is released`, 10_000);
    }
  });
});

describe('the preload: node --import <package>/register', () => {
  test('every thread, including threads started by threads, shares navigator.locks', async () => {
    const { code, stdout, stderr } = await run(['--import', './js/node/register.js', fixture('register-main.js')]);
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stdout.trim().split('\n').pop());
    assert.deepEqual(report, {
      threadId: 2, heldElsewhere: true, grandchildGotIt: false, mainGetsItBack: true, mainIsOurs: true,
    });
  });
});

describe('the polyfill', () => {
  test('it installs navigator.locks where it is missing, and replaces a built-in one only when forced', async () => {
    const hadBuiltIn = typeof globalThis.navigator?.locks?.request === 'function';
    const builtIn = hadBuiltIn ? globalThis.navigator.locks : undefined;
    const { install } = await import('../../../js/node/polyfill.js');
    if (hadBuiltIn) {
      // Node 24 and 26: the built-in does not conform across threads, so importing replaces it.
      assert.equal(builtinKnownDefective(), true, 'every Node with a built-in run here is known defective');
      assert.notEqual(navigator.locks, builtIn, 'a built-in known not to conform is replaced by default');
      assert.equal(install(), locks);
      assert.equal(install({ force: true }), locks);
      const desc = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(navigator), 'locks');
      assert.equal(desc.get.call(navigator), locks, 'the built-in getter is replaced by one returning ours');
      // WebIDL: an accessor on Navigator.prototype (as a browser's), not an own property of navigator.
      assert.equal(Object.getPrototypeOf(navigator), globalThis.Navigator.prototype);
      assert.equal(Object.prototype.hasOwnProperty.call(navigator, 'locks'), false);
      assert.deepEqual([desc.get.name, desc.set, desc.enumerable, desc.configurable], ['get locks', undefined, true, true]);
      assert.throws(() => desc.get.call({}), TypeError);
    } else {
      // Node 20: the navigator is the polyfill's own plain object (no Navigator interface): an own property.
      assert.equal(Object.getOwnPropertyDescriptor(navigator, 'locks').value, locks);
      assert.equal(typeof navigator, 'object', 'navigator exists now');
      assert.equal(install(), locks, 'installing again changes nothing');
    }
    assert.equal(navigator.locks, locks);
    assert.equal(globalThis.LockManager, LockManager);
    assert.equal(globalThis.Lock, Lock);
    assert.equal(Object.prototype.toString.call(navigator.locks), '[object LockManager]');
    const name = uniqueName('polyfill');
    assert.equal(await navigator.locks.request(name, (lock) => lock instanceof Lock), true);
  });

  test('it installs over a navigator whose locks getter returns null (as happy-dom has it)', async () => {
    const { code, stdout, stderr } = await run(['--input-type=module', '-e', `
      Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
      Object.defineProperty(navigator, 'locks', { get() { return null; }, configurable: true });
      const { locks } = await import('./js/node/polyfill.js');
      console.log(navigator.locks === locks, await navigator.locks.request('x', (lock) => lock.name));
    `]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'true x');
  });
});

describe('the in-context engine', () => {
  test('createLocalLockManager() serves its caller alone: a lock held in the shared space does not block it', async () => {
    const name = uniqueName('local');
    const shared = requestHandle(locks, name);
    await shared.granted;
    const local = createLocalLockManager();
    assert.equal(await local.request(name, { ifAvailable: true }, (lock) => lock?.name), name);
    assert.deepEqual((await local.query()).held, []);
    shared.release();
    await shared.settled;
  });

  test('without shared memory the package falls back to an in-context engine, with one warning', async () => {
    const { code, stdout, stderr } = await run(['--input-type=module', '-e', `
      delete globalThis.SharedArrayBuffer;
      const { locks } = await import('./js/node/index.js');
      const a = await locks.request('x', async () => {
        return locks.request('x', { ifAvailable: true }, (lock) => lock === null);
      });
      console.log(a);
    `]);
    assert.equal(code, 0, stderr);
    assert.equal(stdout.trim(), 'true');
    assert.equal(stderr.match(/in-context engine/g)?.length, 1, stderr);
  });
});
