// The chaos tests' checker must flag real overlaps and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkHolds } from '../../model/hold-checker.mjs';

const log = (...entries) => entries.map((e, seq) => ({ seq, ...e }));
const grant = (hold, holder, name, mode, steal = false) => ({ type: 'grant', hold, holder, name, mode, steal });
const release = (hold) => ({ type: 'release', hold });

test('consecutive exclusive holds and overlapping shared holds are fine', () => {
  const result = checkHolds(log(
    grant('h1', 'A', 'x', 'exclusive'), release('h1'),
    grant('h2', 'B', 'x', 'shared'), grant('h3', 'C', 'x', 'shared'), release('h2'), release('h3'),
    grant('h4', 'A', 'y', 'exclusive'), grant('h5', 'B', 'x', 'exclusive'), release('h4'), release('h5'),
  ));
  assert.deepEqual(result, { holds: 5, stolen: 0, violations: 0, stillHeld: [], problems: [], involved: [] });
});

test('two exclusive holders at once, or shared with exclusive, are violations', () => {
  const result = checkHolds(log(
    grant('h1', 'A', 'x', 'exclusive'), grant('h2', 'B', 'x', 'exclusive'), release('h1'), release('h2'),
    grant('h3', 'A', 'y', 'shared'), grant('h4', 'B', 'y', 'exclusive'), release('h4'), release('h3'),
  ));
  assert.equal(result.violations, 2);
});

test('a steal cuts every earlier holder at its intent, but not holders granted after it', () => {
  const ok = checkHolds(log(
    grant('h1', 'A', 'x', 'shared'), grant('h2', 'B', 'x', 'shared'),
    { type: 'stealIntent', hold: 's', name: 'x' }, grant('s', 'C', 'x', 'exclusive', true),
    release('h1'), release('s'), release('h2'),
  ));
  assert.equal(ok.violations, 0, ok.problems.join('\n'));
  const bad = checkHolds(log(
    { type: 'stealIntent', hold: 's', name: 'x' }, grant('s', 'C', 'x', 'exclusive', true),
    grant('h1', 'A', 'x', 'exclusive'), release('h1'), release('s'),
  ));
  assert.equal(bad.violations, 1);
});

test('a dead holder\'s holds end when it is declared dead, and holds never released are reported', () => {
  const result = checkHolds(log(
    grant('h1', 'A', 'x', 'exclusive'), { type: 'dead', holder: 'A' }, grant('h2', 'B', 'x', 'exclusive'),
  ));
  assert.equal(result.violations, 0);
  assert.deepEqual(result.stillHeld, ['h2 (B, "x")']);
});

test('a hold known to be stolen is not held against holds recorded after the steal', () => {
  // The holder saw its grant and the stolen event together, after the stealer had already logged.
  const entries = log(
    { type: 'stealIntent', hold: 's', name: 'x' }, grant('s', 'C', 'x', 'exclusive', true),
    grant('h1', 'A', 'x', 'exclusive'), release('s'), release('h1'), { type: 'stolen', hold: 'h1' },
  );
  assert.equal(checkHolds(entries).violations, 0);
  assert.equal(checkHolds(entries.filter((e) => e.type !== 'stolen')).violations, 1);
});

test('a dead tab takes its workers with it, and what its messages say after death is ignored', () => {
  const result = checkHolds(log(
    grant('w', 't1/w1', 'x', 'exclusive'), { type: 'dead', holder: 't1' },
    grant('late', 't1', 'x', 'exclusive'), grant('h2', 't2', 'x', 'exclusive'), release('h2'),
  ));
  assert.equal(result.violations, 0, result.problems.join('\n'));
  assert.equal(result.holds, 2);
  assert.deepEqual(result.stillHeld, []);
});
