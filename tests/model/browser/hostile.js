// A hostile same-origin page: it opens its own connections to the lock hub (the SharedWorker the
// polyfill uses) and sends random and malformed messages: junk values, every message type with
// wrong, missing, extra or out-of-range fields, forged tokens, other clients' clientIds, floods,
// undeserializable data, adopted ports that misbehave, bye followed by more traffic. Honest
// requests on its own names are mixed in so deeper hub states get reached. It never answers pings
// (its constant traffic keeps it alive) and it releases what it is granted on the honest names
// quickly, so the honest tabs are slowed, never starved, by legitimate use.
(function (scope) {
  const HUB_URL = '/build/dist/weblocks-hub.js';
  const HUB_NAME = 'weblocks-wasm-hub';
  const TYPES = ['hello', 'request', 'release', 'abort', 'query', 'pong', 'probe', 'bye', 'adopt', 'ended'];
  const HONEST_NAMES = ['r0', 'r1', 'r2'];

  function run({ seconds, seed, version }) {
    let state = seed >>> 0 || 1;
    const random = () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const int = (n) => Math.floor(random() * n);
    const pick = (list) => list[int(list.length)];
    const stats = { sent: 0, sendFailures: 0, replies: {}, connections: 0, learnedClientIds: 0 };
    const learned = new Set();
    const connections = [];

    const junkValues = () => [
      undefined, null, 0, -1, 1.5, NaN, Infinity, -0, 2 ** 53, -(2 ** 53), 1e308, '', 'x'.repeat(70000), '\uD800', true,
      [], [1, 2], {}, Object.create(null), new Date(), /re/g, new Map([[1, 2]]), new Set([1]), new ArrayBuffer(8),
      new Uint8Array([1, 2]), new Error('e'), 10n, { toString: 'no' }, JSON.parse('{"__proto__": {"t": "request"}}'),
      pick(TYPES), `${pick(TYPES)} `, 'constructor', 'hasOwnProperty', '__proto__', { length: 3 },
      pick(HONEST_NAMES), pick([...learned, 'nobody']),
    ];
    const junk = () => pick(junkValues());
    const token = () => pick([1 + int(50), 1 + int(5000), 0, -1, 1.5, 2 ** 53, junk()]);

    function message(conn) {
      const shape = int(14);
      switch (shape) {
        case 0: return junk();
        case 1: return { t: junk() };
        case 2: { // a known type with random extra or wrong fields
          const m = { t: pick(TYPES) };
          for (let i = int(4); i > 0; i--) m[pick(['token', 'name', 'mode', 'wait', 'call', 'v', 'clientId', 'lostHub', 'reclaim', 'extra'])] = junk();
          return m;
        }
        case 3: return { t: 'hello', v: pick([1, 1, 0, 2, '1', NaN, null]), key: pick([`k${int(1e6)}`, `k${int(1e6)}`, '', 7]), clientId: pick([`hostile-${int(1e6)}`, '', 'y'.repeat(300), ...learned, 'x']),
          lostHub: pick([null, null, 'not-this-hub', '', 'z'.repeat(65)]), reclaim: pick([[], [], junk(), [{ token: token(), name: pick(HONEST_NAMES), mode: 'exclusive', held: true, seq: null }],
            [{ token: 1, name: 'h0', mode: 'shared', held: false, seq: 3 }, { token: 1, name: 'h0', mode: 'shared', held: false, seq: 3 }]]) };
        case 4: case 5: case 6: { // a well-formed request: its own names mostly
          conn.nextToken = Math.max(conn.nextToken + 1, conn.nextToken + (random() < 0.1 ? -3 : 1));   // sometimes reuse a token
          const wait = pick(['wait', 'no-wait', 'preempt', 'wait']);
          return { t: 'request', token: conn.nextToken, name: random() < 0.8 ? `h${int(4)}` : pick(HONEST_NAMES), mode: wait === 'preempt' ? 'exclusive' : pick(['exclusive', 'shared']), wait };
        }
        case 7: return { t: 'request', token: token(), name: pick(['x'.repeat(65537), junk(), 'h0']), mode: pick(['exclusive', 'shared', 'EXCLUSIVE', junk()]), wait: pick(['wait', 'no-wait', 'preempt', 'steal', junk()]) };
        case 8: return { t: pick(['release', 'abort']), token: token() };   // forged: someone else's numbers
        case 9: return { t: pick(['query', 'probe']), call: token() };
        case 10: return random() < 0.5 ? { t: pick(['pong', 'bye', 'adopt']) } : { t: pick(['adopt', 'ended']), worker: pick([int(4) + 1, 0, -1, 1.5, junk()]) };
        case 11: return { t: 'request', token: conn.nextToken + 1, name: 'h0', mode: 'shared', wait: 'preempt' };  // steal of a shared lock
        case 12: return { t: 'release', token: conn.nextToken };
        default: return { t: 'request', token: (conn.nextToken += 1), name: 'h1', mode: 'exclusive', wait: 'wait', extra: 1 };
      }
    }

    function send(conn, value, transfer) {
      try {
        conn.port.postMessage(value, transfer ?? []);
        stats.sent++;
      } catch {
        stats.sendFailures++;   // not cloneable (a function, a symbol): never reaches the hub
      }
    }

    function open() {
      const worker = new SharedWorker(HUB_URL, { name: HUB_NAME, extendedLifetime: true });
      const conn = { port: worker.port, nextToken: 0, granted: [] };
      worker.port.onmessage = (event) => {
        const m = event.data;
        const type = m && typeof m.t === 'string' ? m.t : typeof m;
        stats.replies[type] = (stats.replies[type] ?? 0) + 1;
        if (type === 'snapshot') {
          // (a piece's LockInfos come as columns, protocol 12: runs of [clientId, mode, count])
          for (const { runs } of [m.held, m.pending]) {
            for (let r = 0; r < runs.length; r += 3) if (!runs[r].startsWith('hostile')) learned.add(runs[r]);
          }
          stats.learnedClientIds = learned.size;
        }
        // Locks on the honest names are given back at once: slowed, never starved.
        if (type === 'granted') conn.port.postMessage({ t: 'release', token: m.token });
      };
      worker.port.start();
      stats.connections++;
      conn.port.postMessage({ t: 'hello', v: version, clientId: `hostile-${stats.connections}-${int(1e9)}`, key: `k${int(1e9)}`, lostHub: null, reclaim: [] });
      conn.port.postMessage({ t: 'query', call: 1 });
      connections.push(conn);
      return conn;
    }

    for (let i = 0; i < 3; i++) open();
    const until = performance.now() + seconds * 1000;
    return new Promise((resolve) => {
      const step = () => {
        if (performance.now() >= until) return resolve(stats);
        const conn = pick(connections);
        const r = random();
        if (r < 0.02) {
          for (let i = 0; i < 2000; i++) send(conn, message(conn));   // a flood
        } else if (r < 0.03) {
          send(conn, new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));   // cannot cross to the hub's agent cluster
        } else if (r < 0.04) {
          const channel = new MessageChannel();   // adopt a port, then misbehave on it
          send(conn, { t: 'adopt', worker: int(4) + 1 }, [channel.port1]);
          channel.port2.postMessage({ t: 'hello', v: version, clientId: `hostile-adopted-${int(1e9)}`, key: `k${int(1e9)}`, lostHub: null, reclaim: [] });
          for (let i = 0; i < 20; i++) channel.port2.postMessage(message(conn));
        } else if (r < 0.045) {
          const a = new MessageChannel();
          const b = new MessageChannel();
          send(conn, { t: 'adopt', worker: 1 }, [a.port1, b.port1]);   // two ports
        } else if (r < 0.05) {
          connections.push(open());
        } else if (r < 0.055) {
          send(conn, () => 1);   // a function: DataCloneError here
          send(conn, { t: 'request', token: 1, name: Symbol('s') });
        } else {
          for (let i = 0; i < 20; i++) send(conn, message(conn));
        }
        setTimeout(step, 1);
      };
      step();
    });
  }

  scope.hostile = { run };
})(self);
