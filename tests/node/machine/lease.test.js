// Leases (js/machine/machine-hub.js, "Leases"): a client that asked for one keeps its locks after
// its process dies, for the lease, and another process that knows its clientId and key adopts it
// (the lock server's restarts: docs/remote.md "Server restarts"). Processes are really killed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { createLockManager } from '../../../js/api/lock-manager.js';
import { MachineBackend } from '../../../js/machine/machine-backend.js';
import { spaceFiles } from '../../../js/machine/place.js';
import { freshSpace, killHub, exitOf } from './support.js';
import { eventually } from '../api/until.js';

const holderScript = new URL('./fixtures/leased-holder.mjs', import.meta.url).pathname;

/** A child process holding `names` under a lease; resolves once each is granted: { child, fences }. */
async function leasedHolder(t, env, { clientId, key, lease }, names) {
  const child = spawn(process.execPath, [holderScript, clientId, key, String(lease), ...names], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const fences = new Map();
  const lines = readline.createInterface({ input: child.stdout });
  for await (const line of lines) {
    const [name, fence] = line.split(' ');
    fences.set(name, Number(fence));
    if (fences.size === names.length) break;
  }
  return { child, fences };
}

async function kill(child) {
  child.kill('SIGKILL');
  await exitOf(child);
}

function manager(space, options = {}) {
  const backend = new MachineBackend(spaceFiles(space.folder, space.space), options);
  return { backend, locks: createLockManager(backend) };
}

/** An adopter of `identity` claiming `claims` ([token, name, held]); resolves to its requests' grants (or errors) and the adoption's outcome. */
async function adopt(space, identity, claims) {
  const { backend, locks } = manager(space, identity);
  const adoption = backend.adopt();
  const outcomes = claims.map(([token, name, held]) => {
    backend.claim(token, held);
    let release;
    const granted = new Promise((resolve) => {
      locks.request(name, (lock) => {
        resolve({ lock });
        return new Promise((r) => { release = r; });
      }).catch((error) => resolve({ error }));
    });
    return { granted, release: () => release() };
  });
  const adopted = await adoption.then(() => null, (error) => error);
  return { adopted, outcomes, backend, locks };
}

const identity = (n) => ({ clientId: `leased-${n}-${process.pid}`, key: `key-${n}-${Math.random()}`, lease: 60_000 });

test('a leased client\'s locks outlive its killed process, nobody is granted them meanwhile, and an adopter with its key gets them back with their fencing tokens', async (t) => {
  const space = freshSpace(t);
  const who = identity(1);
  const holder = await leasedHolder(t, space.env, who, ['a', 'b']);
  const other = manager(space);
  const waiting = other.locks.request('a', (lock) => lock.fencingToken);
  await kill(holder.child);
  assert.equal(await other.locks.request('b', { ifAvailable: true }, (lock) => lock), null, 'b is kept');
  const { adopted, outcomes } = await adopt(space, who, [[1, 'a', true], [2, 'b', true]]);
  assert.equal(adopted, null);
  const [a, b] = await Promise.all(outcomes.map((o) => o.granted));
  assert.equal(a.lock?.fencingToken, holder.fences.get('a'));
  assert.equal(b.lock?.fencingToken, holder.fences.get('b'));
  outcomes[0].release();
  assert.ok(await waiting > holder.fences.get('a'), 'the waiter is granted after the adopter released');
  outcomes[1].release();
  other.backend.fail(new Error('done'));
});

test('an adoption is refused with the wrong key, while the client\'s process lives, and once the lease ran out; a plain hello cannot take the client either', async (t) => {
  const space = freshSpace(t);
  const who = { ...identity(2), lease: 5000 }; // (long enough for the refusals below on a loaded machine)
  const holder = await leasedHolder(t, space.env, who, ['a']);
  const alive = await adopt(space, who, [[1, 'a', true]]);
  assert.equal(alive.adopted?.name, 'AbortError');
  assert.match(alive.adopted.message, /process still lives/);
  assert.equal((await alive.outcomes[0].granted).error?.name, 'AbortError');
  await kill(holder.child);
  const wrongKey = await adopt(space, { ...who, key: 'not-the-key' }, [[1, 'a', true]]);
  assert.match(wrongKey.adopted?.message ?? '', /key is not that client's/);
  // A plain hello with the clientId is refused as taken; its client goes on under another id,
  // and a lock it claims as held is not given to it.
  const plain = manager(space, { clientId: who.clientId });
  assert.equal(await plain.locks.request('a', { ifAvailable: true }, (lock) => lock), null, 'still kept');
  assert.notEqual(plain.backend.clientId, who.clientId);
  // After the lease, the lock is free and there is nothing to adopt.
  assert.equal(await plain.locks.request('a', (lock) => lock.name), 'a');
  const late = await adopt(space, who, [[1, 'a', true]]);
  assert.match(late.adopted?.message ?? '', /no client of that id is kept/);
  plain.backend.fail(new Error('done'));
});

test('a leased client kept across its hub\'s death: the next hub reads the lease from the journal, an adopter gets the locks, a waiter keeps its place', async (t) => {
  const space = freshSpace(t);
  const who = identity(3);
  const holder = await leasedHolder(t, space.env, who, ['a']);
  await kill(holder.child);
  const other = manager(space);
  assert.equal(await other.locks.request('a', { ifAvailable: true }, (lock) => lock), null, 'kept');
  const waiting = other.locks.request('a', (lock) => lock.fencingToken);
  killHub(space.files);
  const { adopted, outcomes } = await adopt(space, who, [[1, 'a', true]]);
  assert.equal(adopted, null);
  const [a] = await Promise.all(outcomes.map((o) => o.granted));
  assert.equal(a.lock?.fencingToken, holder.fences.get('a'));
  outcomes[0].release();
  assert.ok(await waiting > holder.fences.get('a'));
  other.backend.fail(new Error('done'));
});

test('a leased client closed by its own process releases its locks at once: it says bye (its process lives, so a silent close would keep them)', async (t) => {
  const space = freshSpace(t);
  const mine = manager(space, { ...identity(4), lease: 3_600_000 });
  const held = mine.locks.request('a', () => new Promise(() => {})).then(() => null, (error) => error);
  const other = manager(space);
  await eventually(async () => (await other.locks.query()).held.length === 1, 'a held');
  mine.backend.fail(new DOMException('closed by its owner', 'AbortError'));
  assert.equal(await other.locks.request('a', (lock) => lock.name), 'a');
  assert.equal((await held)?.name, 'AbortError');
  other.backend.fail(new Error('done'));
});
