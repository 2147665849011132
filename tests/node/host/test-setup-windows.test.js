// weblocks-wasm/test-setup in the DOM emulations of test runners, each test file with a window of
// its own in one thread: happy-dom's windows share one Navigator class (one Navigator.prototype
// for every window of the process), jsdom's have classes of their own. A runner either reuses one
// copy of the package for every file (vitest with isolate: false) or loads a copy per file (vitest
// vmThreads, jest: here the CommonJS bundle, required afresh). Each file's navigator.locks must
// serve it (spec 2.2.1: every navigator has a LockManager) in a new lock space, and the windows
// of earlier files keep theirs. The browser build's install() too (its getter lives where the
// test-setup's does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Window } from 'happy-dom';
import { JSDOM } from 'jsdom';

const require = createRequire(import.meta.url);
const cjsSetup = fileURLToPath(new URL('../../../build/dist/weblocks-test-setup.cjs', import.meta.url));
const esmSetup = new URL('../../../js/node/test-setup.js', import.meta.url).href;
const here = fileURLToPath(new URL('.', import.meta.url));

const saved = Object.fromEntries(['navigator', 'Navigator'].map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
test.after(() => {
  for (const [name, desc] of Object.entries(saved)) {
    if (desc === undefined) delete globalThis[name];
    else Object.defineProperty(globalThis, name, desc);
  }
});

// What a runner's DOM environment does for a test file: the window's navigator and interfaces
// become the thread's globals.
function enter(window) {
  for (const name of ['navigator', 'Navigator']) {
    Object.defineProperty(globalThis, name, { value: window[name], writable: true, configurable: true, enumerable: false });
  }
}

// A test file's setup with a copy of the package of its own (the CommonJS bundle, required afresh).
function setupFileCopy() {
  delete require.cache[cjsSetup];
  return require(cjsSetup);
}

// What a test file leaves behind: a lock it never releases, and a request queued behind it.
async function leaveBehind(locks, name) {
  await new Promise((held) => { locks.request(name, () => { held(); return new Promise(() => {}); }); });
  locks.request(name, () => {});
}

async function namesSeen(locks) {
  const { held, pending } = await locks.query();
  return [...held, ...pending].map((info) => info.name);
}

// A held lock excludes (spec 2.4 "request a lock": ifAvailable and not grantable -> null), and
// its release grants the next.
async function servesExclusively(locks, name) {
  let release;
  await new Promise((held) => { locks.request(name, () => { held(); return new Promise((resolve) => { release = resolve; }); }); });
  const second = await locks.request(name, { ifAvailable: true }, (lock) => lock);
  release();
  return { second, next: await locks.request(name, (lock) => lock.name) };
}

const happyWindows = (count) => Array.from({ length: count }, () => new Window());
const closeHappy = (windows) => Promise.all(windows.map((window) => window.happyDOM.close()));

test('happy-dom windows share one Navigator class (the case the setup file must handle)', async () => {
  const [first, second] = happyWindows(2);
  assert.equal(Object.getPrototypeOf(first.navigator), Object.getPrototypeOf(second.navigator));
  assert.equal(first.navigator.locks, null, "happy-dom's own navigator.locks");
  await closeHappy([first, second]);
});

test('one copy of the package for every file (vitest, isolate: false): the second happy-dom window gets navigator.locks in a new lock space, the first keeps its own', async () => {
  const [first, second, untouched] = happyWindows(3);
  enter(first);
  const { install, resetLockSpace } = await import(esmSetup);
  assert.equal(typeof first.navigator.locks?.request, 'function');
  await leaveBehind(first.navigator.locks, 'left-by-the-first-file');

  enter(second);
  resetLockSpace();
  assert.equal(install(), second.navigator.locks);
  assert.deepEqual(await namesSeen(second.navigator.locks), [], 'nothing of the first file reaches the second');
  assert.deepEqual(await servesExclusively(second.navigator.locks, 'second-file'), { second: null, next: 'second-file' });
  assert.equal(install(), second.navigator.locks, 'installing again in the same window changes nothing');
  assert.equal(typeof first.navigator.locks.request, 'function', "the first window's navigator.locks still serves it");
  assert.equal(untouched.navigator.locks, null, 'a window that did not install keeps what happy-dom gives');
  await closeHappy([first, second, untouched]);
});

test('a copy of the package per file (vitest vmThreads, jest): each happy-dom window gets the LockManager of its own copy, in a new lock space', async () => {
  const [first, second, untouched] = happyWindows(3);
  enter(first);
  const firstCopy = setupFileCopy();
  const firstLocks = first.navigator.locks;
  assert.equal(firstCopy.install(), firstLocks);
  await leaveBehind(firstLocks, 'left-by-the-first-file');

  enter(second);
  const secondCopy = setupFileCopy();
  const secondLocks = second.navigator.locks;
  assert.notEqual(secondLocks, firstLocks);
  assert.equal(secondCopy.install(), secondLocks);
  assert.deepEqual(await namesSeen(secondLocks), [], 'nothing of the first file reaches the second');
  assert.deepEqual(await servesExclusively(secondLocks, 'second-file'), { second: null, next: 'second-file' });
  assert.equal(first.navigator.locks, firstLocks, "the first window's navigator.locks is still its own copy's");
  assert.equal(untouched.navigator.locks, null, 'a window that did not install keeps what happy-dom gives');
  const desc = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(second.navigator), 'locks');
  assert.deepEqual([desc.get.name, desc.set, desc.enumerable, desc.configurable], ['get locks', undefined, true, true], 'a WebIDL attribute on Navigator.prototype');
  assert.equal(Object.prototype.hasOwnProperty.call(second.navigator, 'locks'), false);
  await closeHappy([first, second, untouched]);
});

test('jsdom windows (classes of their own), with one copy of the package or a copy per file: each gets navigator.locks in a new lock space', async () => {
  const windows = Array.from({ length: 3 }, () => new JSDOM('').window);
  assert.notEqual(Object.getPrototypeOf(windows[0].navigator), Object.getPrototypeOf(windows[1].navigator));
  const { install, resetLockSpace } = await import(esmSetup);
  const setups = [() => { resetLockSpace(); install(); }, setupFileCopy, setupFileCopy];
  for (const [index, window] of windows.entries()) {
    enter(window);
    setups[index]();
    const { locks } = window.navigator;
    assert.deepEqual(await namesSeen(locks), [], `window ${index}: nothing of an earlier file reaches it`);
    assert.deepEqual(await servesExclusively(locks, `file-${index}`), { second: null, next: `file-${index}` });
    await leaveBehind(locks, `left-by-file-${index}`);
  }
  for (const window of windows) assert.equal(typeof window.navigator.locks.request, 'function');
  for (const window of windows) window.close();
});

// The browser build keeps its in-context hub's ports open (in a browser the page's end closes
// them): it runs in a child process that exits when done. The in-context fallback is handed to
// each window as weblocks-in-context.js would register it there.
test("the browser build's install() in two happy-dom windows (one Navigator class): each window gets navigator.locks, and neither throws", async () => {
  const { code, stdout, stderr } = await new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', `
      import { Window } from 'happy-dom';
      import { install } from ${JSON.stringify(new URL('../../../js/browser/install.js', import.meta.url).href)};
      import { startInContextHub } from ${JSON.stringify(new URL('../../../js/browser/in-context-hub.js', import.meta.url).href)};
      import { IN_CONTEXT_KEY } from ${JSON.stringify(new URL('../../../js/browser/in-context-key.js', import.meta.url).href)};
      const [first, second, untouched] = [new Window(), new Window(), new Window()];
      // In a browser, weblocks-in-context.js (served next to the hub) registers this in the window
      // that needs the fallback; here there is nothing to serve it from.
      for (const window of [first, second]) window[IN_CONTEXT_KEY] = startInContextHub;
      const outcome = {};
      for (const [key, window] of Object.entries({ first, second })) {
        const installed = install({ scope: window, forceLocal: true });
        let release;
        await new Promise((held) => { window.navigator.locks.request('r', () => { held(); return new Promise((r) => { release = r; }); }); });
        const second = await window.navigator.locks.request('r', { ifAvailable: true }, (lock) => lock);
        release();
        outcome[key] = { installed: window.navigator.locks === installed, second, next: await window.navigator.locks.request('r', (lock) => lock.name) };
      }
      outcome.untouched = untouched.navigator.locks;
      console.log(JSON.stringify(outcome));
      process.exit(0);
    `], { cwd: here, timeout: 60_000 }, (error, out, err) => resolve({ code: error ? (error.code ?? 1) : 0, stdout: out, stderr: err }));
  });
  assert.equal(code, 0, stderr);
  const served = { installed: true, second: null, next: 'r' };
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').pop()), { first: served, second: served, untouched: null });
});
