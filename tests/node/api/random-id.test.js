// Client ids, connection keys and hub ids (js/api/random-id.js): on plain http there is no
// crypto.randomUUID (secure contexts only), and a connection's key must still not be guessable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUuid } from '../../../js/api/random-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('without crypto.randomUUID (an insecure context), ids are version 4 UUIDs drawn from crypto.getRandomValues', (t) => {
  const real = globalThis.crypto;
  let drawn = 0;
  const insecure = { getRandomValues: (bytes) => { drawn++; return real.getRandomValues(bytes); } };
  Object.defineProperty(globalThis, 'crypto', { value: insecure, configurable: true, writable: true });
  t.after(() => Object.defineProperty(globalThis, 'crypto', { value: real, configurable: true, writable: true }));
  const ids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
  assert.equal(drawn, 1000, 'every id drew from the platform\'s secure random source');
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, UUID_V4);
});

test('with crypto.randomUUID, ids are its UUIDs', () => {
  assert.match(randomUuid(), UUID_V4);
});
