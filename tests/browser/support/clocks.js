// Ordering checks across contexts, on one clock. A context stamps events with
// performance.timeOrigin + now(): its now() is the machine's monotonic clock, but its time origin
// is the wall clock read once, when the context began, so two contexts disagree by whatever the
// wall clock was stepped or slewed between their births. One CI run showed it (Chromium, run J on
// aa0f91f): a waiter's grant seemed to precede a busy worker's exit by 18.6-20.6 ms in four
// attempts in a row (the worker made seconds after the two tabs; the busy window case beside it
// passed); the same cases alone then showed +1.1-3.2 ms, ten runs of ten. A wall clock stepped by
// 40 ms between a tab's birth and a worker's put the worker's stamps 38 ms ahead. So a stamp is first
// mapped onto the runner's monotonic clock, through an offset measured by round trips to that
// context, and the check allows for both measurements' uncertainty (half their shortest round
// trip): it still catches any grant that came a few milliseconds before the event it needed.
import { expect, call } from './fixtures.js';

const SAMPLES = 7;

/**
 * This context's clock against the runner's: `offset` (context stamp minus runner time) within
 * ± `uncertainty` ms. A context's offset stays fixed for its life, so it may be measured before the
 * context gets busy (a busy or terminated worker cannot answer).
 */
export async function clockOf(page, pathIds = []) {
  let best = null;
  for (let i = 0; i < SAMPLES; i++) {
    const sent = performance.now();
    const stamp = await call(page, pathIds, 'clock');
    const back = performance.now();
    const sample = { offset: stamp - (sent + back) / 2, uncertainty: (back - sent) / 2 };
    if (best === null || sample.uncertainty < best.uncertainty) best = sample;
  }
  return best;
}

/** A stamp `at` of `page` (and path), with that context's clock. */
export async function stampOf(page, pathIds, at) {
  return { at, clock: await clockOf(page, pathIds) };
}

/**
 * Fails unless `later.at` (a stamp on `later.clock`) came after `earlier.at` (on `earlier.clock`),
 * both mapped onto the runner's clock.
 */
export function expectAfter(later, earlier, message) {
  const slack = later.clock.uncertainty + earlier.clock.uncertainty;
  const laterOnRunner = later.at - later.clock.offset;
  const earlierOnRunner = earlier.at - earlier.clock.offset;
  const detail = `${message} (on the runner's clock ${laterOnRunner.toFixed(2)} vs ${earlierOnRunner.toFixed(2)}, ± ${slack.toFixed(2)} ms; offsets ${later.clock.offset.toFixed(2)} and ${earlier.clock.offset.toFixed(2)} ms)`;
  expect(laterOnRunner, detail).toBeGreaterThanOrEqual(earlierOnRunner - slack);
}

/** The time between two stamps of two contexts, on the runner's clock (for reports). */
export function between(earlier, later) {
  return (later.at - later.clock.offset) - (earlier.at - earlier.clock.offset);
}
