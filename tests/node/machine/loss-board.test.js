// The loss board (js/machine/loss-board.js): a client settles a request as soon as its callback
// ends when its board shows that no hub gave its lock to anyone else meanwhile; otherwise it waits
// for the hub's confirmation, after the news of the loss. A holder SIGSTOPped while a live hub's
// steal takes its lock must still learn it before its request settles (the same guarantee as
// across a hub's death: hub-death.test.js), and a board read that is torn, or shows the token
// lost, never lets a request settle early.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshSpace, exitOf, hubPid } from './support.js';
import { OwnBoard, raiseBoard, removeBoard } from '../../../js/machine/loss-board.js';

import { contender, readStamps, stamped } from './stamped-contenders.js';

const at = (stamps, what) => {
  const index = stamps.findIndex((entry) => entry.what === what);
  assert.notEqual(index, -1, `"${what}" was stamped: ${JSON.stringify(stamps.map((entry) => entry.what))}`);
  return index;
};

test('a holder SIGSTOPped while a steal at the live hub takes its lock learns it before its request settles: it rejects with an AbortError', { timeout: 60_000 }, async (t) => {
  const space = freshSpace(t);
  const stamps = path.join(space.folder, 'stamps.log');
  fs.writeFileSync(stamps, '');
  const victim = contender(space, stamps, { role: 'victim', waitForGo: true, holdMs: 300 });
  t.after(() => { try { victim.kill('SIGCONT'); victim.kill('SIGKILL'); } catch { /* gone */ } });
  await stamped(stamps, 'enter victim');
  const hub = hubPid(space.files);
  victim.send('go');
  await stamped(stamps, 'holding victim');
  victim.kill('SIGSTOP');
  const thief = contender(space, stamps, { role: 'thief', steal: true });
  await exitOf(thief);
  victim.kill('SIGCONT');
  await exitOf(victim);
  const result = readStamps(stamps);
  assert.equal(hubPid(space.files), hub, 'one hub served throughout');
  assert.ok(at(result, 'enter thief') < at(result, 'leave victim'), 'the steal happened while the victim was stopped');
  assert.equal(result[at(result, 'rejected victim')].more, 'AbortError');
  assert.equal(result.some((entry) => entry.what === 'resolved victim'), false, 'the victim\'s request did not resolve');
});

test('a board rules a loss out only below the highest token a hub wrote on it, and only when its read is whole', (t) => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-board-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const file = path.join(folder, 'test.lost-1');
  assert.throws(() => raiseBoard(file, 1), { code: 'ENOENT' }, 'a hub never creates a board its client does not read');
  const board = new OwnBoard(file);
  board.open();
  assert.equal(board.mayHaveLost(1), false, 'an empty board: nothing was lost');
  raiseBoard(file, 5);
  assert.equal(board.mayHaveLost(5), true);
  assert.equal(board.mayHaveLost(3), true);
  assert.equal(board.mayHaveLost(6), false);
  raiseBoard(file, 2); // (a board only rises)
  assert.equal(board.mayHaveLost(5), true);
  // A read that catches a write half done (its two copies differ) rules nothing out.
  const torn = Buffer.alloc(16);
  torn.writeDoubleLE(9, 0);
  torn.writeDoubleLE(5, 8);
  fs.writeFileSync(file, torn);
  assert.equal(board.mayHaveLost(10), true);
  board.remove();
  assert.equal(fs.existsSync(file), false);
  assert.equal(board.mayHaveLost(10), true, 'a closed board rules nothing out');
  removeBoard(file);
});
