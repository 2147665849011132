// Every message the hub receives is validated: malformed, unknown, oversized or forged messages
// are rejected (and logged in the hub's console), never trusted, and never disturb another
// client. A "rogue" here is a raw MessagePort to the hub, driven by hand from a page.
import { test, expect, call, until, named } from './support/fixtures.js';
import { PROTOCOL_VERSION } from '../../js/hub/protocol.js';
import { fromColumns } from '../../js/hub/snapshot-pieces.js';

/** Opens raw connections to the hub in `page`: window.rogue(i).send(msg) / .received. */
async function installRogues(page) {
  await page.evaluate(() => {
    const rogues = [];
    window.rogue = (i) => {
      if (!rogues[i]) {
        // Asked for as the polyfill asks (js/browser/context.js startHub): a connection is anyone's.
        const worker = new SharedWorker('/build/dist/weblocks-hub.js', { name: 'weblocks-wasm-hub', extendedLifetime: true });
        const received = [];
        // Answers pings like a live client (the hub would otherwise declare it dead); keeps the
        // hub's greeting (the first message on every connection) apart.
        const rogue = { port: worker.port, received, greeting: null, send: (m, transfer) => worker.port.postMessage(m, transfer || []) };
        worker.port.onmessage = (event) => {
          if (event.data.t === 'ping') worker.port.postMessage({ t: 'pong' });
          else if (event.data.t === 'hub' && rogue.greeting === null) rogue.greeting = event.data;
          else received.push(event.data);
        };
        rogues[i] = rogue;
      }
      return rogues[i];
    };
    window.rogueSays = (i, messages) => { for (const m of messages) window.rogue(i).send(m); return true; };
    window.rogueHeard = (i) => window.rogue(i).received.slice();
    window.rogueGreeting = (i) => window.rogue(i).greeting;
  });
}

test('malformed, unknown, oversized and forged messages are rejected and leave other clients untouched', async ({ openTab }) => {
  const [victim, bystander, attacker] = await Promise.all([openTab(), openTab(), openTab()]);
  const held = await call(victim, 'request', 'precious');
  await call(victim, 'granted', held);
  const waiting = await call(bystander, 'request', 'precious');
  await until(victim, (s) => named(s.pending, 'precious').length === 1, 'the bystander waits');
  const victimId = (await call(victim, 'connection')).clientId;

  await installRogues(attacker);
  await attacker.evaluate(([victimClientId, v]) => {
    // Before any hello: nothing is accepted.
    window.rogueSays(0, [{ t: 'release', token: 1 }, { t: 'request', token: 1, name: 'precious', mode: 'exclusive', wait: 'preempt' }]);
    // Garbage of every shape.
    window.rogueSays(0, [null, 42, 'hello', [1, 2], { t: 'nonsense' }, { t: { toString: 1 } }, { no: 'type' }]);
    // A hello claiming the victim's clientId is refused.
    window.rogueSays(0, [{ t: 'hello', v, clientId: victimClientId, key: 'rogue-key', lostHub: null, reclaim: [] }]);
    // A hello claiming to re-register the victim's lock (as if a hub had been lost) with a
    // clientId of its own: it may only get what is free, and 'precious' is not.
    window.rogueSays(1, [{ t: 'hello', v, clientId: 'rogue-1', key: 'rogue-key', lostHub: 'made-up', reclaim: [{ token: 1, name: 'precious', mode: 'exclusive', held: true, seq: null }] }]);
    // Then forged and malformed requests on a registered connection.
    window.rogueSays(1, [
      { t: 'release', token: 1 },                  // its own token 1 was refused: nothing to release
      { t: 'release', token: 999 },                // never issued (another client's number, at best)
      { t: 'abort', token: 2 },
      { t: 'request', token: 3, name: 'x'.repeat(70000), mode: 'exclusive', wait: 'wait' },
      { t: 'request', token: 4, name: 42, mode: 'exclusive', wait: 'wait' },
      { t: 'request', token: 5, name: 'precious', mode: 'shared', wait: 'preempt' },
      { t: 'request', token: 6, name: 'precious', mode: 'exclusive', wait: 'steal' },
      { t: 'request', token: -7, name: 'precious', mode: 'exclusive', wait: 'wait' },
      { t: 'request', token: 8, name: 'precious', mode: 'exclusive', wait: 'wait', extra: 'field' },
      { t: 'request', token: 1.5, name: 'precious', mode: 'exclusive', wait: 'wait' },
      { t: 'query', call: 'x' },
      { t: 'adopt', worker: 1 },                   // no port
      { t: 'ended', worker: 1 },                   // a worker it never created (the victim's are numbered from 1 too)
      { t: 'request', token: 20, name: 'rogue-own', mode: 'exclusive', wait: 'wait' },
      { t: 'request', token: 20, name: 'precious', mode: 'exclusive', wait: 'preempt' }, // token reused
      { t: 'query', call: 1 },
    ]);
    // A client speaking another protocol version is told so.
    window.rogueSays(2, [{ t: 'hello', v: 999, clientId: 'from-the-future', lostHub: null, reclaim: [] }]);
  }, [victimId, PROTOCOL_VERSION]);

  // (The first hub of this session's storage: that made-up hello opens no reclaim window.)
  await attacker.waitForFunction(() => ['snapshot', 'granted'].every((t) => window.rogueHeard(1).some((m) => m.t === t))
    && window.rogueHeard(2).length > 0 && window.rogueHeard(0).length > 1);
  const heard = await attacker.evaluate(() => [0, 1, 2].map((i) => window.rogueHeard(i)));
  const hubId = (await call(victim, 'connection')).hubId;
  expect(await attacker.evaluate(() => window.rogueGreeting(0))).toEqual({ t: 'hub', hubId });
  // Before its hello, rogue 0 is told once that it is not registered here; nothing it sent was accepted.
  expect(heard[0]).toEqual([{ t: 'unregistered', hubId, call: 0 }, expect.objectContaining({ t: 'rejected', reason: 'clientId' })]);
  expect(heard[2]).toEqual([expect.objectContaining({ t: 'rejected', reason: 'version', message: expect.stringMatching(new RegExp(`version 999.*speaks ${PROTOCOL_VERSION}`)) })]);
  // Rogue 1: its reclaim of the victim's lock was refused; its one valid request was granted;
  // an abort of a token it never had is answered "not removed"; nothing else got an answer.
  const byType = Object.fromEntries(heard[1].map((m) => [m.t, m]));
  expect(heard[1].map((m) => m.t).sort()).toEqual(['aborted', 'granted', 'snapshot', 'welcome']);
  expect(byType.welcome.reclaimed).toEqual(['stolen']);
  expect(byType.aborted).toMatchObject({ token: 2, removed: false });
  expect(byType.granted).toMatchObject({ token: 20 });
  const snapshotHeld = []; // (its columns, protocol 12, as LockInfos)
  expect(fromColumns(byType.snapshot.held, snapshotHeld)).toBe(true);
  expect(named(snapshotHeld, 'precious')).toEqual([{ name: 'precious', mode: 'exclusive', clientId: victimId }]);

  // The victim still holds, the bystander still waits, in the hub's own view.
  const state = await call(bystander, 'query');
  expect(named(state.held, 'precious')).toEqual([{ name: 'precious', mode: 'exclusive', clientId: victimId }]);
  expect(named(state.pending, 'precious')).toHaveLength(1);
  expect(await call(victim, 'state', held)).toBe('held');
  // And the hub serves on as before.
  await call(victim, 'release', held);
  await call(bystander, 'granted', waiting);
  await call(bystander, 'release', waiting);
  expect(await call(victim, 'settled', held)).toMatchObject({ ok: true });
});

test('a client speaking another protocol version is refused with an error naming both versions', async ({ openTab }) => {
  // The hub answers a mismatched hello with `rejected`; the page-side backend (hub-backend.js)
  // turns that message into a NotSupportedError for every request.
  const page = await openTab();
  await installRogues(page);
  const answer = await page.evaluate(() => new Promise((resolve) => {
    const r = window.rogue(0);
    r.send({ t: 'hello', v: 0, clientId: 'old-page', lostHub: null, reclaim: [] });
    const timer = setInterval(() => { if (r.received.length) { clearInterval(timer); resolve(r.received[0]); } }, 5);
  }));
  expect(answer).toMatchObject({ t: 'rejected', reason: 'version', v: PROTOCOL_VERSION });
  expect(answer.message).toMatch(new RegExp(`protocol mismatch.*version 0.*speaks ${PROTOCOL_VERSION}.*same build`));
});

test('a forged message cannot release or abort another client\'s locks and requests: tokens are per connection', async ({ openTab }) => {
  const [victim, attacker] = await Promise.all([openTab(), openTab()]);
  const held = await call(victim, 'request', 'mine');
  await call(victim, 'granted', held);
  const queued = await call(victim, 'request', 'mine');
  await until(victim, (s) => named(s.pending, 'mine').length === 1, 'the victim\'s second request waits');
  await installRogues(attacker);
  // The attacker registers and then names every small token number there is.
  await attacker.evaluate((v) => {
    window.rogueSays(0, [{ t: 'hello', v, clientId: 'attacker', key: 'rogue-key', lostHub: null, reclaim: [] }]);
    const forged = [];
    for (let token = 1; token <= 64; token++) forged.push({ t: 'release', token }, { t: 'abort', token });
    forged.push({ t: 'query', call: 1 });
    window.rogueSays(0, forged);
  }, PROTOCOL_VERSION);
  await attacker.waitForFunction(() => window.rogueHeard(0).some((m) => m.t === 'snapshot'));
  const aborted = await attacker.evaluate(() => window.rogueHeard(0).filter((m) => m.t === 'aborted'));
  expect(aborted).toHaveLength(64);
  expect(aborted.every((m) => m.removed === false)).toBe(true);
  const state = await call(victim, 'query');
  expect(named(state.held, 'mine')).toHaveLength(1);
  expect(named(state.pending, 'mine')).toHaveLength(1);
  await call(victim, 'release', held);
  await call(victim, 'granted', queued);
  await call(victim, 'release', queued);
});

/**
 * In `page`: answers the next hub's announcement with a forged `had-hub`, and says hello on a raw
 * connection as a survivor of hub `lostHub` that held `name`. Resolves to the hub's welcome.
 */
function claimLostHub(page, { lostHub, name }) {
  return page.evaluate(([claimed, v, held]) => new Promise((resolve) => {
    const channel = new BroadcastChannel('weblocks-wasm-hub');
    const forge = () => channel.postMessage({ t: 'had-hub', hubId: claimed });
    channel.onmessage = (event) => { if (event.data?.t === 'hub-started') forge(); };
    forge();
    window.rogueSays(0, [{ t: 'hello', v, clientId: 'claimant', key: 'claimant-key', lostHub: claimed, reclaim: [{ token: 1, name: held, mode: 'exclusive', held: true, seq: null }] }]);
    const timer = setInterval(() => {
      const welcome = window.rogueHeard(0).find((m) => m.t === 'welcome');
      if (welcome) { clearInterval(timer); resolve({ welcome, greeting: window.rogueGreeting(0) }); }
    }, 5);
  }), [lostHub, PROTOCOL_VERSION, name]);
}

// Measured before the hub's succession record: either claim opened the 2.5 s reclaim window of a hub
// younger than 5 s (honest handoff p99 from ~1.5 ms to 1,000 ms), and this hello was answered 'held'.
test('a claim of a lost hub on the first hub of an origin opens no reclaim window: the claimant does not get the lock it claims, and others are served at once', async ({ openTab }) => {
  const [attacker, honest] = await Promise.all([openTab(), openTab()]);
  await installRogues(attacker);
  const { welcome } = await claimLostHub(attacker, { lostHub: 'made-up', name: 'claimed' });
  expect(welcome.reclaimed).toEqual(['stolen']);
  // Honest contexts are served as usual, the claimed name included.
  const id = await call(honest, 'request', 'claimed');
  await call(honest, 'granted', id);
  await call(honest, 'release', id);
  expect(await call(honest, 'settled', id)).toMatchObject({ ok: true });
});

test('a claim of the lost hub on a hub started after every tab of the one before had closed opens no reclaim window', async ({ openTab, engine, endIdleHub }) => {
  // WebKit runs the hub in the process of the tab that started it and ends it with that tab: the
  // last tab's bye never gets the hub's record written (measured: the record still said
  // `clients: true` 1.5 s later; an IndexedDB write of the page's own in pagehide was lost too).
  // So in WebKit a hub after the last tab closed trusts claims on its first 5 s, as before.
  test.skip(engine === 'webkit', 'WebKit ends the hub with its last tab before the hub can record that it has no clients left (docs/browser.md, "Hub loss and reclaim")');
  const first = await openTab();
  const id = await call(first, 'request', 'claimed');
  await call(first, 'granted', id);
  await call(first, 'release', id);
  const previous = (await call(first, 'connection')).hubId;
  await first.close();
  // Said bye: the hub recorded that it has no registered client left (js/hub/succession.js). The
  // browser ends a SharedWorker whose last page has gone (Chromium after a while); the next tab
  // starts a new hub.
  await endIdleHub();
  const attacker = await openTab();
  await installRogues(attacker);
  const { welcome, greeting } = await claimLostHub(attacker, { lostHub: previous, name: 'claimed' });
  expect(greeting.hubId, 'a new hub serves the origin').not.toBe(previous);
  expect(welcome.reclaimed).toEqual(['stolen']);
});
