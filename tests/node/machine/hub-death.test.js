// Holders paused across the hub's death (FAULTS.md: pauses of any party, coordinator restarts):
// a holder SIGSTOPped, or busy in a synchronous task, while the hub is SIGKILLed keeps its lock
// for as long as it lives, however long it is paused, and the lock of a holder that died goes to
// its waiter as soon as the next hub serves. A holder whose lock was stolen meanwhile learns it
// before its request settles. Every contender stamps its enter, leave and outcome into one file
// with the machine's clock (fixtures/stamped-contender.mjs): the test reads the order from
// outside the processes under test, and reports the times (it asserts none).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { freshSpace, exitOf, hubPid, killHub } from './support.js';

import { contender, readStamps, stamped, sleep } from './stamped-contenders.js';

async function pending(locks, name, count) {
  for (let i = 0; i < 3000; i++) {
    const state = await locks.query();
    if (state.pending.filter((request) => request.name === name).length >= count) return;
    await sleep(5);
  }
  throw new Error(`${count} requests for ${name} never waited`);
}

/** The new hub, once it serves: its pid, and when it started serving (from its log line). */
async function nextHub(files, oldPid) {
  for (let i = 0; i < 6000; i++) {
    const pid = hubPid(files);
    if (pid !== null && pid !== oldPid) {
      const line = fs.readFileSync(files.log, 'utf8').split('\n').reverse().find((entry) => entry.includes(`info serving lock space`) && entry.includes(`(pid ${pid},`));
      if (line !== undefined) return { pid, servingAt: Date.parse(line.slice(0, line.indexOf(' '))) };
    }
    await sleep(5);
  }
  throw new Error('no new hub served');
}

const at = (stamps, what) => {
  const index = stamps.findIndex((entry) => entry.what === what);
  assert.notEqual(index, -1, `"${what}" was stamped: ${JSON.stringify(stamps.map((entry) => entry.what))}`);
  return index;
};
const tokenOf = (stamps, what) => Number(stamps[at(stamps, what)].more);

/**
 * The scene of the first two tests: `live` holds y and pauses (how: `pause`), `dead` holds x;
 * each has a waiter. The hub is SIGKILLed, then `dead`, with every other client stopped, so that
 * the next hub starts only after `dead` ended.
 */
async function scene(t, { liveHolder, pause }) {
  const space = freshSpace(t);
  const stamps = path.join(space.folder, 'stamps.log');
  fs.writeFileSync(stamps, '');
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const live = contender(space, stamps, { role: 'live', name: 'y', waitForGo: true, ...liveHolder });
  const dead = contender(space, stamps, { role: 'dead', name: 'x', waitForGo: true });
  await stamped(stamps, 'enter live');
  await stamped(stamps, 'enter dead');
  const waiterY = contender(space, stamps, { role: 'waiterY', name: 'y' });
  const waiterX = contender(space, stamps, { role: 'waiterX', name: 'x' });
  await pending(locks, 'y', 1);
  await pending(locks, 'x', 1);
  const children = [live, dead, waiterY, waiterX];
  t.after(() => { for (const child of children) { try { child.kill('SIGCONT'); child.kill('SIGKILL'); } catch { /* gone */ } } });

  live.send('go');
  await pause(live, stamps);
  for (const waiter of [waiterX, waiterY]) waiter.kill('SIGSTOP');
  const oldHub = killHub(space.files);
  const hubKilledAt = performance.timeOrigin + performance.now();
  dead.kill('SIGKILL');
  await exitOf(dead);
  for (const waiter of [waiterX, waiterY]) waiter.kill('SIGCONT');
  const hub = await nextHub(space.files, oldHub);
  return { space, stamps, live, waiterX, waiterY, hub, hubKilledAt };
}

/** What both pause tests check once every contender ended. */
function checkScene(t, { stamps: file, hub, hubKilledAt }, what) {
  const stamps = readStamps(file);
  // No overlap on y: the paused holder kept it until it left, and was never told otherwise.
  assert.ok(at(stamps, 'leave live') < at(stamps, 'enter waiterY'), 'y\'s waiter entered only after its holder left');
  assert.ok(at(stamps, 'resolved live') >= 0 && !stamps.some((entry) => entry.what.startsWith('rejected')), 'no request rejected');
  // x went to its waiter: its holder died.
  assert.ok(at(stamps, 'enter waiterX') >= 0);
  assert.ok(tokenOf(stamps, 'enter waiterY') > tokenOf(stamps, 'enter live'), 'y\'s fencing token grew across the hub\'s death');
  assert.ok(tokenOf(stamps, 'enter waiterX') > tokenOf(stamps, 'enter dead'), 'x\'s fencing token grew across the hub\'s death');
  const enteredX = stamps[at(stamps, 'enter waiterX')].ms;
  t.diagnostic(`${what}: the dead holder's lock reached its waiter ${(enteredX - hub.servingAt).toFixed(1)} ms after the new hub logged that it serves `
    + `(${(enteredX - hubKilledAt).toFixed(0)} ms after the hub was killed); the paused holder left y at +${(stamps[at(stamps, 'leave live')].ms - hubKilledAt).toFixed(0)} ms, `
    + `its waiter entered at +${(stamps[at(stamps, 'enter waiterY')].ms - hubKilledAt).toFixed(0)} ms`);
}

test('a holder SIGSTOPped while the hub is SIGKILLed keeps its lock until it releases it, and a dead holder\'s lock goes to its waiter meanwhile', { timeout: 90_000 }, async (t) => {
  const run = await scene(t, {
    liveHolder: { holdMs: 300 }, // a timer that comes due while the process is stopped
    pause: async (live, stamps) => { await stamped(stamps, 'holding live'); live.kill('SIGSTOP'); },
  });
  // The dead holder's lock reaches its waiter while the live holder is still stopped; only then
  // does the stopped holder go on. (Any window of time the hub waited would have ended first.)
  await stamped(run.stamps, 'enter waiterX');
  assert.equal(readStamps(run.stamps).some((entry) => entry.what === 'enter waiterY'), false, 'nobody was granted y while its holder was stopped');
  run.live.kill('SIGCONT');
  await Promise.all([run.live, run.waiterX, run.waiterY].map(exitOf));
  checkScene(t, run, 'SIGSTOP');
});

test('a holder busy in a 4 s synchronous task while the hub is SIGKILLed keeps its lock until it releases it, and a dead holder\'s lock goes to its waiter meanwhile', { timeout: 90_000 }, async (t) => {
  const run = await scene(t, {
    liveHolder: { busyMs: 4000 },
    pause: async (live, stamps) => { await stamped(stamps, 'busy live'); },
  });
  await Promise.all([run.live, run.waiterX, run.waiterY].map(exitOf));
  const stamps = readStamps(run.stamps);
  assert.ok(at(stamps, 'enter waiterX') < at(stamps, 'leave live'), 'the dead holder\'s lock was given while the live one was still busy');
  checkScene(t, run, 'busy');
});

test('a holder SIGSTOPped across the hub\'s death whose lock is stolen at the next hub learns it before its request settles: it rejects with an AbortError', { timeout: 90_000 }, async (t) => {
  const space = freshSpace(t);
  const stamps = path.join(space.folder, 'stamps.log');
  fs.writeFileSync(stamps, '');
  const victim = contender(space, stamps, { role: 'victim', waitForGo: true, holdMs: 300 });
  t.after(() => { try { victim.kill('SIGCONT'); victim.kill('SIGKILL'); } catch { /* gone */ } });
  await stamped(stamps, 'enter victim');
  victim.send('go');
  await stamped(stamps, 'holding victim');
  victim.kill('SIGSTOP');
  const oldHub = killHub(space.files);
  // The thief starts the next hub, which keeps the stopped victim's lock for it: the steal takes it from there.
  const thief = contender(space, stamps, { role: 'thief', steal: true });
  await exitOf(thief);
  assert.notEqual(hubPid(space.files), oldHub);
  victim.kill('SIGCONT');
  await exitOf(victim);
  const result = readStamps(stamps);
  assert.ok(at(result, 'enter thief') < at(result, 'leave victim'), 'the steal happened while the victim was stopped');
  assert.equal(result[at(result, 'rejected victim')].more, 'AbortError');
  assert.equal(result.some((entry) => entry.what === 'resolved victim'), false, 'the victim\'s request did not resolve');
  assert.ok(tokenOf(result, 'enter thief') > tokenOf(result, 'enter victim'), 'the thief\'s fencing token is above its victim\'s');
});

test('fencing tokens grow with every grant of a name: one after another, a steal, and across hub deaths', async (t) => {
  const space = freshSpace(t);
  const a = createMachineLockManager({ folder: space.folder, space: space.space });
  const b = createMachineLockManager({ folder: space.folder, space: space.space });
  const tokens = [];
  const take = (locks, options = {}) => locks.request('fenced', options, (lock) => { tokens.push(lock.fencingToken); });
  await take(a);
  await take(b);
  killHub(space.files);
  await take(a);
  // b holds; a steals; b's request rejects.
  let letGo;
  const held = b.request('fenced', (lock) => { tokens.push(lock.fencingToken); return new Promise((resolve) => { letGo = resolve; }); })
    .then(() => 'resolved', (error) => error.name);
  for (let i = 0; i < 2000 && letGo === undefined; i++) await sleep(5);
  assert.equal(typeof letGo, 'function', 'b holds the lock');
  await take(a, { steal: true });
  letGo();
  assert.equal(await held, 'AbortError');
  killHub(space.files);
  await take(b);
  assert.equal(tokens.length, 6);
  for (const token of tokens) assert.ok(Number.isSafeInteger(token) && token > 0, `a fencing token: ${token}`);
  for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i] > tokens[i - 1], `strictly increasing: ${tokens}`);
});

test('a holder stopped across the hub\'s death keeps its lock at the next hub until it dies there; then its waiter gets it', { timeout: 90_000 }, async (t) => {
  const space = freshSpace(t);
  const stamps = path.join(space.folder, 'stamps.log');
  fs.writeFileSync(stamps, '');
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  const holder = contender(space, stamps, { role: 'holder', waitForGo: true });
  t.after(() => { try { holder.kill('SIGCONT'); holder.kill('SIGKILL'); } catch { /* gone */ } });
  await stamped(stamps, 'enter holder');
  const before = await locks.query();
  const waiter = contender(space, stamps, { role: 'waiter' });
  await pending(locks, 'x', 1);
  holder.kill('SIGSTOP');
  const oldHub = killHub(space.files);
  await nextHub(space.files, oldHub); // started by the waiter, which reconnects at once
  // The next hub holds x for the stopped holder (its clientId), with the waiter still waiting.
  let state;
  for (let i = 0; i < 2000; i++) {
    state = await locks.query();
    if (state.pending.length === 1) break;
    await sleep(5);
  }
  assert.deepEqual(state.held.map((lock) => [lock.name, lock.clientId]), before.held.map((lock) => [lock.name, lock.clientId]));
  assert.deepEqual(state.pending.map((request) => request.name), ['x']);
  const killedAt = performance.timeOrigin + performance.now();
  holder.kill('SIGKILL');
  await exitOf(waiter);
  const entered = readStamps(stamps).find((entry) => entry.what === 'enter waiter');
  assert.ok(entered !== undefined && entered.ms > killedAt, 'the waiter entered after the holder died');
  t.diagnostic(`the waiter entered ${(entered.ms - killedAt).toFixed(1)} ms after the stopped holder was SIGKILLed (the hub looks its unconnected clients up every 20 ms)`);
});
