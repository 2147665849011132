// A steal's victims hear that they lost the lock before the thief hears that it has it. The hub's
// messages of one engine call go out one after another; a hub that dies between them (its process
// killed) must never leave the thief running while a victim was not told: the victim would then
// re-register the lock it believes it holds with the next hub and hold it together with the thief.
// (Found by the machine lock space's chaos test, the hub SIGKILLed as it delivered a steal.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';
import { hubContext } from './hub-context.js';
import { until } from './until.js';

const quiet = () => {};

async function lockSpace(t) {
  const hub = new Hub(await createLocalEngine(), { hubId: 'only', log: quiet });
  const ports = [];
  const sent = []; // every message the hub posted, in order (a batch's one by one): [clientId, type]
  t.after(() => { hub.stop(); for (const port of ports) port.close(); });
  const client = (clientId) => hubContext({
    hubNow: () => hub,
    ports,
    clientId,
    wire(hubSide) {
      const post = hubSide.postMessage.bind(hubSide);
      hubSide.postMessage = (message) => {
        for (const one of message.t === 'batch' ? message.m : [message]) sent.push([clientId, one.t]);
        post(message);
      };
    },
  });
  return { hub, sent, client };
}

test('the holders a steal takes the lock from are told before the thief is told it holds it', async (t) => {
  const space = await lockSpace(t);
  const [a, b, thief] = ['a', 'b', 'thief'].map(space.client);
  const victims = [a, b].map((victim) => victim.locks.request('x', { mode: 'shared' }, () => new Promise(() => {})).catch((error) => error.name));
  await until(() => space.hub.engine.snapshot().held.length === 2, 'a and b hold x (shared)');
  const before = space.sent.length;
  assert.equal(await thief.locks.request('x', { steal: true }, (lock) => lock.mode), 'exclusive');
  assert.deepEqual(await Promise.all(victims), ['AbortError', 'AbortError']);
  const order = space.sent.slice(before).filter(([, type]) => type === 'stolen' || type === 'granted');
  assert.deepEqual(order.map(([clientId, type]) => `${clientId} ${type}`).sort(), ['a stolen', 'b stolen', 'thief granted']);
  assert.equal(order.at(-1).join(' '), 'thief granted', `the thief last: ${JSON.stringify(order)}`);
});

test('two steals of one lock in one turn of the hub (its reclaim window closing): the first thief hears its grant, then its loss, before the second hears its grant', async (t) => {
  const space = await lockSpace(t);
  const [holder, first, second] = ['holder', 'first', 'second'].map(space.client);
  const held = holder.locks.request('x', () => new Promise(() => {})).catch((error) => error.name);
  await until(() => space.hub.engine.snapshot().held.length === 1, 'the holder holds x');
  // A reclaim window holds new requests back; both steals are then handed to the engine in one turn.
  space.hub.openReclaimWindow();
  const firstSteal = first.locks.request('x', { steal: true }, () => new Promise(() => {})).catch((error) => error.name);
  const secondSteal = second.locks.request('x', { steal: true }, () => 'second');
  await until(() => space.hub.deferred.length === 2, 'both steals wait for the window');
  const before = space.sent.length;
  clearTimeout(space.hub.reclaimTimer);
  space.hub.closeReclaimWindow();
  assert.equal(await secondSteal, 'second');
  assert.equal(await firstSteal, 'AbortError');
  assert.equal(await held, 'AbortError');
  const order = space.sent.slice(before).filter(([, type]) => type === 'stolen' || type === 'granted').map((entry) => entry.join(' '));
  assert.deepEqual(order, ['holder stolen', 'first granted', 'first stolen', 'second granted']);
});
