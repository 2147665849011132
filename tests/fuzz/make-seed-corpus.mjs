#!/usr/bin/env node
// Writes the fuzzer's seed corpus: byte strings in the harness's encoding (engine_fuzzer.cpp,
// Harness::step) that already contend, steal, abort, close and exhaust, so mutation starts deep.
//   node tests/fuzz/make-seed-corpus.mjs <dir>
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRandom } from '../model/random.mjs';

const OP = { open: 0, close: 1, closeOwner: 2, request: 3, release: 7, abort: 9, fuzzedName: 10, snapshot: 11 };
const arg = (slot, mode = 0, wait = 0) => slot | (mode << 3) | (wait << 4);   // mode 0 exclusive 1 shared; wait 0 wait 1 no-wait 2 steal

function sequence(rng, { capped, length }) {
  const bytes = capped ? [1, rng.int(8)] : [0];
  for (let s = 0; s < 4; s++) bytes.push(OP.open, s, rng.int(256));
  for (let i = 0; i < length; i++) {
    const slot = rng.int(4);
    switch (rng.weighted({ request: 6, release: 3, abort: 1, close: 0.5, open: 0.5, closeOwner: 0.2, fuzzedName: 0.5, snapshot: 0.5 })) {
      case 'request': bytes.push(OP.request, arg(slot, rng.int(2), rng.weighted({ 0: 6, 1: 2, 2: 1 }) | 0), rng.int(8)); break;
      case 'release': bytes.push(OP.release, slot, rng.int(255)); break;
      case 'abort': bytes.push(OP.abort, slot, rng.int(255)); break;
      case 'close': bytes.push(OP.close, slot); break;
      case 'open': bytes.push(OP.open, slot, rng.int(256)); break;
      case 'closeOwner': bytes.push(OP.closeOwner, rng.int(3) << 3); break;
      case 'fuzzedName': {
        const length = rng.chance(0.04) ? 255 : rng.int(24);
        bytes.push(OP.fuzzedName, arg(slot, rng.int(2), rng.int(2)), length);
        if (length === 255) bytes.push(rng.int(3));
        for (let k = 0; k < length % 24; k++) bytes.push(rng.int(256), rng.chance(0.3) ? 0xd8 : rng.int(256));
        break;
      }
      default: bytes.push(OP.snapshot, 0);
    }
  }
  return Uint8Array.from(bytes);
}

const dir = process.argv[2];
mkdirSync(dir, { recursive: true });
const rng = createRandom(2026);
for (let i = 0; i < 24; i++) {
  writeFileSync(join(dir, `seed-${String(i).padStart(2, '0')}`), sequence(rng, { capped: i % 3 === 0, length: 8 + rng.int(i < 12 ? 40 : 400) }));
}
console.log(`wrote 24 seeds to ${dir}`);
