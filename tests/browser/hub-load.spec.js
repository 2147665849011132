// The hub under load and abuse, in the browser: a page floods the hub over several connections of
// its own while two honest tabs hand one lock back and forth; a page forges claims of a lost hub
// from the hub's first moment. External checker: every honest hold is stamped in the page
// (performance.timeOrigin + now) and the holds of both tabs are checked for overlap here. A page
// that asks for far more memory than its share: hub-quota.spec.js (three engines).
// WEBLOCKS_FLOOD_SECONDS=20 for a long flood (default 4 s).
import { test, expect, call } from './support/fixtures.js';
import { PROTOCOL_VERSION } from '../../js/hub/protocol.js';

const FLOOD_SECONDS = Number(process.env.WEBLOCKS_FLOOD_SECONDS) || 4;

/** In a page: opens `connections` raw connections to the hub and floods them for `seconds`. */
async function flood(page, { seconds, connections, version }) {
  return page.evaluate(([seconds, connections, version]) => new Promise((resolve) => {
    const ports = [];
    const stats = { sent: 0, replies: 0 };
    for (let c = 0; c < connections; c++) {
      const worker = new SharedWorker('/build/dist/weblocks-hub.js', { name: 'weblocks-wasm-hub', extendedLifetime: true });
      worker.port.onmessage = () => { stats.replies++; };
      worker.port.start();
      worker.port.postMessage({ t: 'hello', v: version, clientId: `flooder-${c}-${Math.random()}`, ...(version >= 3 ? { key: `k${Math.random()}` } : {}), lostHub: null, reclaim: [] });
      ports.push({ port: worker.port, token: 0, call: 0 });
    }
    const end = performance.now() + seconds * 1000;
    const burst = () => {
      if (performance.now() >= end) { resolve(stats); return; }
      for (const conn of ports) {
        for (let i = 0; i < 700; i++) {
          const k = i % 3;
          if (k === 0) conn.port.postMessage({ t: 'request', token: ++conn.token, name: `flood-${conn.token % 64}`, mode: 'exclusive', wait: 'wait' });
          else if (k === 1) conn.port.postMessage({ t: 'abort', token: conn.token });
          else conn.port.postMessage({ t: 'query', call: ++conn.call });
        }
        stats.sent += 700;
      }
      setTimeout(burst, 0);
    };
    burst();
  }), [seconds, connections, version]);
}

/** In an honest tab: takes `name` again and again for `seconds`, holding it ~1 ms each time. */
function handoffLoop(page, name, seconds) {
  return page.evaluate(([name, seconds]) => (async () => {
    const clock = () => performance.timeOrigin + performance.now();
    const waits = [];
    const holds = [];
    let errors = 0;
    const end = performance.now() + seconds * 1000;
    while (performance.now() < end) {
      const asked = performance.now();
      try {
        await navigator.locks.request(name, async () => {
          const from = clock();
          waits.push(performance.now() - asked);
          await new Promise((r) => setTimeout(r, 1));
          holds.push([from, clock()]);
        });
      } catch { errors++; }
    }
    return { waits, holds, errors };
  })(), [name, seconds]);
}

function percentile(list, q) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function overlaps(holdsA, holdsB) {
  const all = [...holdsA.map((h) => [...h, 'a']), ...holdsB.map((h) => [...h, 'b'])].sort((x, y) => x[0] - y[0]);
  const found = [];
  for (let i = 1; i < all.length; i++) if (all[i][0] < all[i - 1][1]) found.push([all[i - 1], all[i]]);
  return found;
}

test('a page flooding the hub over three connections: honest tabs keep handing off, no hub loss is faked, exclusion holds', async ({ openTab }) => {
  test.setTimeout(60_000 + FLOOD_SECONDS * 3000);
  const trouble = [];
  const a = await openTab('plain.html?coi');
  const b = await openTab('plain.html?coi');
  for (const [label, page] of [['a', a], ['b', b]]) {
    page.on('console', (m) => { if (/stopped answering|declared this context dead|lock requests fail/.test(m.text())) trouble.push(`${label}: ${m.text()}`); });
  }
  const flooder = await openTab('plain.html');
  // Without the flood, for reference.
  const [quietA, quietB] = await Promise.all([handoffLoop(a, 'turn', 1.5), handoffLoop(b, 'turn', 1.5)]);
  const quiet = [...quietA.waits, ...quietB.waits];
  // With it.
  const [floodStats, loadA, loadB] = await Promise.all([
    flood(flooder, { seconds: FLOOD_SECONDS, connections: 3, version: PROTOCOL_VERSION }),
    handoffLoop(a, 'turn', FLOOD_SECONDS),
    handoffLoop(b, 'turn', FLOOD_SECONDS),
  ]);
  const loaded = [...loadA.waits, ...loadB.waits];
  const report = {
    floodSeconds: FLOOD_SECONDS, floodSent: floodStats.sent, floodReplies: floodStats.replies,
    quiet: { handoffs: quiet.length, p50: percentile(quiet, 0.5), p99: percentile(quiet, 0.99) },
    flood: { handoffs: loaded.length, p50: percentile(loaded, 0.5), p99: percentile(loaded, 0.99), max: Math.max(...loaded) },
  };
  console.log(`hub flood: ${JSON.stringify(report)}`);
  test.info().annotations.push({ type: 'hub flood', description: JSON.stringify(report) });
  expect(overlaps([...quietA.holds, ...loadA.holds], [...quietB.holds, ...loadB.holds]), 'no two holds of the lock overlapped').toEqual([]);
  expect(trouble, 'no honest tab concluded the hub was lost or was declared dead').toEqual([]);
  expect(loadA.errors + loadB.errors).toBe(0);
  // Outcomes only: latency under flood is reported above (annotation), never asserted (timings belong to bench/).
  expect(loadA.holds.length, 'tab A was granted the lock during the flood').toBeGreaterThan(0);
  expect(loadB.holds.length, 'tab B was granted the lock during the flood').toBeGreaterThan(0);
});

/**
 * In a page: every 100 ms for `seconds`, claims a lost hub twice over: a forged `had-hub` answer on
 * the hub's channel, and a hello on a new raw connection re-registering `name` as held. Resolves
 * to what each hello was answered.
 */
function forgeClaims(page, { name, seconds, version }) {
  return page.evaluate(([name, seconds, version]) => new Promise((resolve) => {
    const channel = new BroadcastChannel('weblocks-wasm-hub');
    const reclaimed = [];
    let n = 0;
    const claim = () => {
      const i = ++n;
      channel.postMessage({ t: 'had-hub', hubId: `made-up-${i}` });
      const { port } = new SharedWorker('/build/dist/weblocks-hub.js', { name: 'weblocks-wasm-hub', extendedLifetime: true });
      port.onmessage = (event) => {
        if (event.data.t === 'ping') port.postMessage({ t: 'pong' });
        if (event.data.t === 'welcome') reclaimed.push(...event.data.reclaimed);
      };
      port.postMessage({ t: 'hello', v: version, clientId: `claimant-${i}`, key: `k${i}`, lostHub: `made-up-${i}`, reclaim: [{ token: 1, name, mode: 'exclusive', held: true, seq: null }] });
    };
    claim();
    const timer = setInterval(claim, 100);
    setTimeout(() => {
      clearInterval(timer);
      // The last hellos' welcomes.
      const done = () => (reclaimed.length >= n ? resolve({ claims: n, reclaimed }) : setTimeout(done, 20));
      done();
    }, seconds * 1000);
  }), [name, seconds, version]);
}

test('claims of a lost hub forged from the hub\'s first moment open no reclaim window: honest tabs hand off as usual, exclusion holds', async ({ openTab }) => {
  // The forger's tab is the origin's first: the hub is younger than 5 s throughout, the age at which
  // a claim used to open the window.
  const forger = await openTab('plain.html');
  const a = await openTab('plain.html?coi');
  const b = await openTab('plain.html?coi');
  const [forged, loadA, loadB] = await Promise.all([
    forgeClaims(forger, { name: 'turn', seconds: 3, version: PROTOCOL_VERSION }),
    handoffLoop(a, 'turn', 3),
    handoffLoop(b, 'turn', 3),
  ]);
  const [quietA, quietB] = await Promise.all([handoffLoop(a, 'turn', 1.5), handoffLoop(b, 'turn', 1.5)]);
  const quiet = [...quietA.waits, ...quietB.waits];
  const loaded = [...loadA.waits, ...loadB.waits];
  const report = {
    claims: forged.claims,
    forged: { handoffs: loaded.length, p50: percentile(loaded, 0.5), p99: percentile(loaded, 0.99), max: Math.max(...loaded) },
    quiet: { handoffs: quiet.length, p50: percentile(quiet, 0.5), p99: percentile(quiet, 0.99) },
  };
  console.log(`forged claims of a lost hub: ${JSON.stringify(report)}`);
  test.info().annotations.push({ type: 'forged claims', description: JSON.stringify(report) });
  expect(forged.reclaimed, 'no forged hello got "turn" back as held').toEqual(Array(forged.claims).fill('stolen'));
  expect(overlaps([...loadA.holds, ...quietA.holds], [...loadB.holds, ...quietB.holds]), 'no two holds of the lock overlapped').toEqual([]);
  expect(loadA.errors + loadB.errors).toBe(0);
  expect(loadA.holds.length, 'tab A was granted the lock meanwhile').toBeGreaterThan(0);
  expect(loadB.holds.length, 'tab B was granted the lock meanwhile').toBeGreaterThan(0);
});
