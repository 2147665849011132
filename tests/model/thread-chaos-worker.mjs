// One chaos thread: attaches to the shared engine and makes random requests (every option,
// aborts after a random wait) until told to stop, logging each hold. It may crash on purpose
// while holding locks; the main thread may terminate it at any moment.
import { workerData, threadId, parentPort } from 'node:worker_threads';
import { createRandom } from './random.mjs';
import { SharedHoldLog } from './chaos-log.mjs';

const { module, memory, logBuffer, controlBuffer, recordBuffer, seed, workerIndex, nameCount, crashChance, plantFakeGrants } = workerData;
const api = await import('../../js/engine/index.js');
const engine = await api.attachEngine({ module, memory });
const client = engine.openClient(`thread-${threadId}`, threadId);
const log = new SharedHoldLog(logBuffer);
const control = new Int32Array(controlBuffer);   // [0]: stop flag, [1]: grants, [2]: steals, [3]: aborts won, [4]: notAvailable
// What the main thread needs if this thread dies: [0] client handle, [1] engine id of the lock it
// holds (or is about to log as held), [2] that hold's number (0: none).
const record = new Float64Array(recordBuffer);
record[0] = client;
const rng = createRandom(seed);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let nextHold = workerIndex * 1_000_000;

const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);

// Waits until the event for `id` arrives or `timeoutMs` passes; handles every other event on the way.
function waitForGrant(id, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { int32, index } = engine.doorbell(client);
    const seen = Atomics.load(int32, index);
    let granted = false;
    for (const event of engine.takeEvents(client)) {
      if (event.type === api.EVENT.granted && event.id === id) granted = true;
    }
    if (granted) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    Atomics.wait(int32, index, seen, Math.min(left, 50));
  }
}

function logGrant(id, hold, nameIndex, mode, steal) {
  record[1] = id;
  record[2] = hold;
  log.append('grant', hold, threadId, nameIndex, mode, steal);
}

function holdFor(id, hold) {
  if (rng.chance(crashChance)) throw new Error(`thread ${threadId} crashes on purpose while holding a lock`);
  if (rng.chance(0.5)) sleep(1 + rng.int(4));
  log.append('release', hold, threadId);
  if (!engine.release(client, id)) log.append('stolen', hold, threadId);
  record[2] = 0;
}

while (Atomics.load(control, 0) === 0) {
  const nameIndex = rng.int(nameCount);
  const name = `resource-${nameIndex}`;
  const wait = rng.weighted({ wait: 60, noWait: 25, preempt: 15 });
  const mode = wait === 'preempt' || rng.chance(0.6) ? 'exclusive' : 'shared';
  const hold = ++nextHold;
  if (wait === 'preempt') log.append('stealIntent', hold, threadId, nameIndex);
  const { status, id } = engine.request(client, name, api.MODE[mode], api.WAIT[wait]);
  if (status === api.STATUS.granted) {
    logGrant(id, hold, nameIndex, mode, wait === 'preempt');
    Atomics.add(control, wait === 'preempt' ? 2 : 1, 1);
    holdFor(id, hold);
  } else if (status === api.STATUS.queued) {
    const patience = rng.chance(0.3) ? rng.int(5) : 10_000;
    let granted = waitForGrant(id, patience);
    if (!granted) {
      if (engine.abort(client, id)) { Atomics.add(control, 3, 1); continue; }
      granted = waitForGrant(id, 10_000);   // the abort lost the race: the grant is on its way
    }
    if (!granted) throw new Error(`request ${id} neither granted nor abortable`);
    logGrant(id, hold, nameIndex, mode, false);
    Atomics.add(control, 1, 1);
    holdFor(id, hold);
  } else {
    Atomics.add(control, 4, 1);
    if (plantFakeGrants) {
      // A planted bug, for the test that proves the checker catches one: act as if an
      // ifAvailable request that was refused had been granted.
      log.append('grant', hold, threadId, nameIndex, mode, false);
      sleep(1);
      log.append('release', hold, threadId);
    }
  }
}
engine.closeClient(client);
parentPort.postMessage('stopped');
