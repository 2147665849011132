// The chaos test's checkers find what they must (a checker that cannot fail proves nothing).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkStamps } from './stamps.js';
import { checkJournal } from './journal-check.js';

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
  const stealOfAVictim = checkStamps('enter a exclusive 3.0.0.0 steal 3\nenter a exclusive 1.0.0.0 wait 1\nenter a exclusive 2.0.0.0 steal 2\nkilled 1\nkilled 2\n');
  assert.equal(stealOfAVictim.violations.length, 0, 'a victim that is itself a steal took the earlier victim\'s lock');
  const sharedVictims = checkStamps('enter a exclusive 3.0.0.0 steal 3\nenter a shared 1.0.0.0 wait 1\nenter a shared 2.0.0.0 wait 2\nkilled 1\nkilled 2\n');
  assert.equal(sharedVictims.violations.length, 0, 'shared victims may hold together');
});

test('the journal check finds a grant made while a conflicting lock was held, and tells a steal from it', () => {
  const c = '["c",1,"one","k",1,1,1,0]\n["c",2,"two","k",2,2,2,0]\n';
  const sequence = checkJournal(`${c}["g",1,1,1,"exclusive","a"]\n["r",1,1]\n["g",2,1,2,"exclusive","a"]\n`);
  assert.deepEqual([sequence.grants, sequence.steals, sequence.conflicts], [2, 0, []]);
  const steal = checkJournal(`${c}["g",1,1,1,"shared","a"]\n["g",2,1,2,"exclusive","a"]\n["r",1,1]\n["g",2,2,3,"shared","b"]\n["r",2,1]\n`);
  assert.equal(steal.conflicts.length, 0, 'the holder\'s end right after the grant is a steal');
  const lateEnd = checkJournal(`${c}["g",1,1,1,"shared","a"]\n["g",2,1,2,"exclusive","a"]\n["g",2,2,3,"shared","b"]\n["r",1,1]\n`);
  assert.equal(lateEnd.conflicts.length, 1, 'a holder that ends only after another grant was not stolen: a violation');
  const shared = checkJournal(`${c}["g",1,1,1,"shared","a"]\n["g",2,1,2,"shared","a"]\n`);
  assert.equal(shared.conflicts.length, 0);
  const cutShort = checkJournal(`${c}["g",1,1,1,"exclusive","a"]\n["g",2,1,2,"exclusive","a"]\n\0\0`);
  assert.deepEqual([cutShort.conflicts, cutShort.unjudged], [[], 1], 'a grant at the end of the copy (its victims\' ends may follow) is not judged');
  const cutAfter = checkJournal(`${c}["g",1,1,1,"exclusive","a"]\n["g",2,1,2,"exclusive","a"]\n["q",1,2,"shared","a"]\n\0\0`);
  assert.equal(cutAfter.unjudged, 1);
  const closed = checkJournal(`${c}["g",1,1,1,"exclusive","a"]\n["x",1]\n["g",2,1,2,"exclusive","a"]\n\0\0\0`);
  assert.deepEqual([closed.grants, closed.conflicts], [2, []], 'a closed client holds nothing; the zeroed tail is skipped');
});

test('a thief that died before its callback explains a conflict only with its grant between the two sections\' tokens', () => {
  // 1.0.0.0 holds (token 1); 3.0.0.0 asked a steal, was granted token 2, and was killed before its callback ran.
  const explained = checkStamps('enter a shared 1.0.0.0 wait 1\nsteal a 3.0.0.0\nkilled 3\nenter a exclusive 2.0.0.0 wait 3\nleave a 2.0.0.0\nleave a 1.0.0.0\nlost 1.0.0.0 stolen\n');
  assert.deepEqual([explained.violations, explained.unexplainedLosses, explained.counts.stolen], [[], [], 1]);
  const untold = checkStamps('enter a shared 1.0.0.0 wait 1\nsteal a 3.0.0.0\nkilled 3\nenter a exclusive 2.0.0.0 wait 3\nleave a 2.0.0.0\nleave a 1.0.0.0\n');
  assert.deepEqual([untold.unexplainedLosses.length, untold.counts.stolenByDeadThief], [1, 1], 'its living victim must hear of it');
  const noThief = checkStamps('enter a shared 1.0.0.0 wait 1\nkilled 3\nenter a exclusive 2.0.0.0 wait 3\n');
  assert.equal(noThief.violations.length, 1);
  const tokenEntered = checkStamps('enter a shared 1.0.0.0 wait 1\nsteal a 3.0.0.0\nkilled 3\nenter b exclusive 4.0.0.0 wait 2\nenter a exclusive 2.0.0.0 wait 3\n');
  assert.equal(tokenEntered.violations.length, 1, 'every token between them was entered: no grant left for the thief');
  const thiefLives = checkStamps('enter a shared 1.0.0.0 wait 1\nsteal a 3.0.0.0\nenter a exclusive 2.0.0.0 wait 3\n');
  assert.equal(thiefLives.violations.length, 1, 'a thief that lives would have entered');
  const lateVictim = checkStamps('steal a 3.0.0.0\nkilled 3\nenter a exclusive 2.0.0.0 wait 3\nenter a exclusive 1.0.0.0 wait 1\nkilled 1\n');
  assert.deepEqual([lateVictim.violations, lateVictim.counts.stolenByDeadThief], [[], 1], 'the lower token entering later is the victim');
});
