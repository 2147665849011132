// The chaos test's checker finds what it must (a checker that cannot fail proves nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkStamps } from './stamps.js';

test('two exclusive sections that overlap are a violation; one after the other are not', () => {
  const overlap = checkStamps('enter a exclusive 1.0.0.0 wait\nenter a exclusive 2.0.0.0 wait\nleave a 1.0.0.0\nleave a 2.0.0.0\n');
  assert.equal(overlap.violations.length, 1);
  const sequence = checkStamps('enter a exclusive 1.0.0.0 wait\nleave a 1.0.0.0\nenter a exclusive 2.0.0.0 wait\nleave a 2.0.0.0\n');
  assert.equal(sequence.violations.length, 0);
});

test('shared sections may overlap each other but not an exclusive one', () => {
  assert.equal(checkStamps('enter a shared 1.0.0.0 wait\nenter a shared 2.0.0.0 wait\n').violations.length, 0);
  assert.equal(checkStamps('enter a shared 1.0.0.0 wait\nenter a exclusive 2.0.0.0 wait\n').violations.length, 1);
  assert.equal(checkStamps('enter a exclusive 1.0.0.0 wait\nenter b exclusive 2.0.0.0 wait\n').violations.length, 0, 'other names are independent');
});

test('a stolen holder still running is allowed only where a steal of its name happened', () => {
  const stolen = checkStamps('enter a exclusive 1.0.0.0 wait\nenter a exclusive 2.0.0.0 steal\nleave a 2.0.0.0\nleave a 1.0.0.0\nlost 1.0.0.0 stolen\n');
  assert.deepEqual([stolen.violations.length, stolen.unexplainedLosses.length, stolen.counts.stolen], [0, 0, 1]);
  const unexplained = checkStamps('enter a exclusive 1.0.0.0 wait\nenter a exclusive 2.0.0.0 wait\nlost 1.0.0.0 stolen\n');
  assert.equal(unexplained.unexplainedLosses.length, 1);
  const notBySteal = checkStamps('enter a exclusive 1.0.0.0 wait\nenter a exclusive 2.0.0.0 wait\nlost 1.0.0.0 not-by-steal\n');
  assert.equal(notBySteal.violations.length, 1, 'a lock lost to a hub change is still checked');
  assert.equal(notBySteal.counts.notBySteal, 1);
});

test('a steal ends every section of its name that is in, whether or not its holder heard of it', () => {
  const unheard = checkStamps('enter a shared 1.0.0.0 wait\nenter a shared 2.0.0.0 wait\nenter a exclusive 3.0.0.0 steal\nleave a 1.0.0.0\nleave a 2.0.0.0\n');
  assert.equal(unheard.violations.length, 0);
  const after = checkStamps('enter a exclusive 3.0.0.0 steal\nenter a exclusive 1.0.0.0 wait\n');
  assert.equal(after.violations.length, 1, 'a section that enters while the thief holds, and was not stolen, is a violation');
});

test('a killed process\'s sections end where it was killed, and what it wrote after is ignored', () => {
  const killed = checkStamps('enter a exclusive 1.0.0.0 wait\nkilled 1\nenter a exclusive 1.1.0.0 wait\nenter a exclusive 2.0.0.0 wait\n');
  assert.equal(killed.violations.length, 0);
  assert.equal(killed.counts.processKills, 1);
  const alive = checkStamps('enter a exclusive 1.0.0.0 wait\nkilled 3\nenter a exclusive 2.0.0.0 wait\n');
  assert.equal(alive.violations.length, 1, 'another process\'s kill ends nothing of this one');
});

test('a thread or process that died of an uncaught error is an error, and its sections end there', () => {
  const thread = checkStamps('enter a shared 1.2.0.0 wait\nthread-died 1.2 Error: boom\nenter a exclusive 1.0.0.0 wait\nenter a exclusive 1.2.1.0 wait\n');
  assert.deepEqual([thread.errors, thread.violations.length], [['thread-died 1.2 Error: boom'], 0], 'its section ended; what it wrote after is ignored');
  const others = checkStamps('enter a shared 1.2.0.0 wait\nthread-died 1.2 Error: boom\nenter a exclusive 1.0.0.0 wait\nenter a exclusive 1.1.0.0 wait\n');
  assert.equal(others.violations.length, 1, 'the other threads of its process are still checked');
  const processDied = checkStamps('enter a exclusive 1.0.0.0 wait\ndied 1 Error: boom\nenter a exclusive 2.0.0.0 wait\nenter a exclusive 1.1.0.0 wait\n');
  assert.deepEqual([processDied.errors.length, processDied.violations.length], [1, 0]);
  const unsaid = checkStamps('enter a shared 1.2.0.0 wait\nenter a exclusive 1.0.0.0 wait\n');
  assert.equal(unsaid.violations.length, 1, 'a thread whose end is not stamped still holds');
});

test('a section granted before a steal that entered first was that steal\'s victim, told or not; a grant between them is a violation', () => {
  // Granted at token 1, its thread busy in another callback; stolen at token 2; it enters after the thief, then its process is killed by a due timer before it reads the news.
  const killedUntold = checkStamps('enter a exclusive 2.0.0.0 steal 2\nenter a exclusive 1.0.0.0 wait 1\nkilled 1\nleave a 2.0.0.0\n');
  assert.deepEqual([killedUntold.violations, killedUntold.unexplainedLosses, killedUntold.counts.stolen], [[], [], 1]);
  const told = checkStamps('enter a exclusive 2.0.0.0 steal 2\nenter a exclusive 1.0.0.0 wait 1\nleave a 1.0.0.0\nlost 1.0.0.0 stolen\n');
  assert.deepEqual([told.violations, told.unexplainedLosses], [[], []]);
  const neverTold = checkStamps('enter a exclusive 2.0.0.0 steal 2\nenter a exclusive 1.0.0.0 wait 1\nleave a 1.0.0.0\nleave a 2.0.0.0\n');
  assert.equal(neverTold.unexplainedLosses.length, 1, 'a living victim that never heard of its loss');
  const between = checkStamps('enter a exclusive 3.0.0.0 wait 2\nleave a 3.0.0.0\nenter a exclusive 2.0.0.0 steal 3\nenter a exclusive 1.0.0.0 wait 1\nkilled 1\n');
  assert.equal(between.violations.length, 1, 'token 2 was granted while token 1 held, before the steal');
  const twoVictims = checkStamps('enter a exclusive 3.0.0.0 steal 3\nenter a exclusive 1.0.0.0 wait 1\nenter a exclusive 2.0.0.0 wait 2\nkilled 1\nkilled 2\n');
  assert.equal(twoVictims.violations.length, 1, 'two victims of one steal both held before it');
  const sharedVictims = checkStamps('enter a exclusive 3.0.0.0 steal 3\nenter a shared 1.0.0.0 wait 1\nenter a shared 2.0.0.0 wait 2\nkilled 1\nkilled 2\n');
  assert.equal(sharedVictims.violations.length, 0, 'shared victims may hold together');
});
