// The measured loops, shared by pages and dedicated workers. Each returns raw times in ms;
// bench/browser/run.mjs turns them into rounds, medians and ratios.
import { pendingOnce } from '../lib/workloads.mjs';

export const clock = () => performance.timeOrigin + performance.now();   // comparable across tabs

const noop = () => {};

export async function uncontended(locks, ops) {
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) await locks.request('uncontended', noop);
  return performance.now() - t0;
}

/** Waits until the absolute time `startAt`, then acquires the shared exclusive lock `count` times. */
export async function handoff(locks, count, startAt = 0) {
  const wait = startAt - clock();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const grants = new Array(count);   // when each callback ran: the driver merges tabs to count holder changes
  let i = 0;
  const record = () => { grants[i] = clock(); };
  const start = clock();
  for (; i < count; i++) await locks.request('handoff', record);
  return { start, end: clock(), grants };
}

/** Holds `entries` distinct names until releaseMany() (for query()). */
const heldForQuery = { releases: [], done: [] };
export async function holdMany(locks, entries) {
  const grants = [];
  for (let i = 0; i < entries; i++) {
    grants.push(new Promise((granted) => {
      heldForQuery.done.push(locks.request(`query-${i}`, () => { granted(); return new Promise((r) => heldForQuery.releases.push(r)); }));
    }));
  }
  await Promise.all(grants);
  const snapshot = await locks.query();
  if (snapshot.held.length < entries) throw new Error(`query() showed ${snapshot.held.length} of ${entries} held locks`);
}

/** `count` query() calls, one after the other: ms in all. */
export async function queries(locks, count) {
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await locks.query();
  return performance.now() - t0;
}

export async function releaseMany() {
  for (const release of heldForQuery.releases.splice(0)) release();
  await Promise.all(heldForQuery.done.splice(0));
}

/**
 * `count` requests on distinct names made in one synchronous loop, each callback returning at once:
 * ms to make them and ms until every one has run and settled.
 */
export async function burst(locks, count) {
  const t0 = performance.now();
  const promises = new Array(count);
  for (let i = 0; i < count; i++) promises[i] = locks.request(`burst-${i}`, noop);
  const made = performance.now() - t0;
  await Promise.all(promises);
  return { made, total: performance.now() - t0 };
}

/** Holds one name, enqueues `count` requests on it, then releases and waits for all of them to run. */
export function pending(locks, count) {
  return pendingOnce(locks, count, () => performance.now());
}
