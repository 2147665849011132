// A live context never loses a lock it holds, whatever it sends (issue 26). Tab A holds `x` in a
// callback that lasts about 3 s and meanwhile makes N requests on other names in one synchronous
// loop (an app warming a cache, a sync engine queueing one lock per record); tab B waits for `x`.
// The checker is outside both critical sections: A stamps its entry into and exit from `x`, B
// stamps its grant (performance.timeOrigin + now, one clock for every tab of the browser), and
// the test compares them here. Before flow control, a burst of ~6,000 or more overflowed A's
// inbox at the hub, which closed A's connection and granted `x` to B while A's callback ran.
import { test, expect, call, named, report } from './support/fixtures.js';
import { stampOf, expectAfter, between } from './support/clocks.js';

const HOLD_MS = 3_000;

/** In tab A: holds `x` for HOLD_MS and, inside, requests `burst-0` .. `burst-(n-1)`, each held until window.burst.release(). */
function startBurst(page, n) {
  return page.evaluate(([n, holdMs]) => {
    const clock = () => performance.timeOrigin + performance.now();
    let release;
    const gate = new Promise((resolve) => { release = resolve; });
    const burst = { n, granted: 0, settled: 0, errors: [], xIn: null, xOut: null, madeMs: null, xError: null, release };
    window.burst = burst;
    navigator.locks.request('x', async () => {
      burst.xIn = clock();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        navigator.locks.request(`burst-${i}`, async () => { burst.granted++; await gate; })
          .catch((error) => { if (burst.errors.length < 10) burst.errors.push(`${error.name}: ${error.message}`); })
          .finally(() => { burst.settled++; });
      }
      burst.madeMs = performance.now() - t0;
      await new Promise((resolve) => setTimeout(resolve, holdMs));
      burst.xOut = clock();
    }).catch((error) => { burst.xError = `${error.name}: ${error.message}`; });
  }, [n, HOLD_MS]);
}

function burstState(page) {
  return page.evaluate(() => {
    const { release, ...state } = window.burst;
    return state;
  });
}

async function waitFor(page, predicate, label, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const state = await burstState(page);
    if (predicate(state)) return state;
    if (Date.now() > deadline) throw new Error(`never reached: ${label}; last state ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** In a tab: how many locks query() shows held, without carrying the whole state back. */
function heldCount(page) {
  return page.evaluate(() => navigator.locks.query().then((state) => state.held.length));
}

for (const n of [10_000, 100_000]) {
  test(`a tab holding a lock while it makes ${n.toLocaleString('en')} requests in one synchronous loop keeps it: the waiting tab is granted only after its callback ends, nothing is refused, and query() shows every request`, async ({ openTab }) => {
    test.setTimeout(n > 10_000 ? 240_000 : 90_000);
    const [a, b] = await Promise.all([openTab(), openTab()]);
    await call(a, 'query');
    await call(b, 'query');
    await startBurst(a, n);
    const entered = await waitFor(a, (s) => s.xIn !== null, 'A holds x', 15_000);
    const waiting = await call(b, 'request', 'x');
    const granted = await call(b, 'granted', waiting);
    const afterX = await burstState(a);
    expect(afterX.xError, 'A\'s hold of x ended normally').toBeNull();
    expect(afterX.xOut, 'A left its critical section').not.toBeNull();
    // The external check: B entered only after A left.
    const [left, grantedB] = [await stampOf(a, [], afterX.xOut), await stampOf(b, [], granted.at)];
    expectAfter(grantedB, left, 'B was granted x only after A\'s callback ended');
    await call(b, 'release', waiting);
    expect(await call(b, 'settled', waiting)).toMatchObject({ ok: true });

    const all = await waitFor(a, (s) => s.granted === n || s.errors.length > 0, `all ${n} burst requests granted`, n > 10_000 ? 180_000 : 60_000);
    expect(all.errors, 'no burst request was refused').toEqual([]);
    expect(all.granted).toBe(n);
    // From the other tab: every one of them held by A.
    const state = await call(b, 'query');
    const held = state.held.filter((l) => l.name.startsWith('burst-'));
    expect(held.length, 'query() shows every lock of the burst').toBe(n);
    expect(new Set(held.map((l) => l.clientId)).size, 'all held by A').toBe(1);
    expect(named(state.held, 'x'), 'nobody holds x any more').toEqual([]);
    await a.evaluate(() => window.burst.release());
    const done = await waitFor(a, (s) => s.settled === n, 'every burst request settled', 120_000);
    expect(done.errors).toEqual([]);
    for (const deadline = Date.now() + 120_000; ;) {
      const held = await heldCount(b);
      if (held === 0) break;
      if (Date.now() > deadline) throw new Error(`never reached: everything released (${held} still held)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    report(`${n} requests made in one loop`, entered.madeMs ?? all.madeMs);
    report(`A left x -> B granted x (${n}-request burst)`, between(left, grantedB));
  });
}
