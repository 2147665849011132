#!/usr/bin/env node
// The prepack check (after the build): npm pack must never write a tarball without the engine or
// the browser bundles. Exits 1, naming what is missing and the fix.
import { readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];
const required = [
  'build/dist/weblocks-engine.wasm',
  'build/dist/weblocks-engine-shared.wasm',
  'build/dist/weblocks-hub.js',
  'build/dist/weblocks-in-context.js',
  'build/dist/weblocks-polyfill.js',
  'build/dist/weblocks-polyfill-sync.js',
  'build/dist/weblocks-sentinel.js',
  'build/dist/weblocks-observe.js',
  'build/dist/weblocks-test-setup.cjs',
  'LICENSE',
];

const problems = [];
for (const file of required) {
  const full = path.join(root, file);
  if (!existsSync(full) || statSync(full).size === 0) { problems.push(`${file} is missing or empty`); continue; }
  if (file.endsWith('.wasm') && !WASM_MAGIC.every((byte, i) => readFileSync(full)[i] === byte)) problems.push(`${file} is not a wasm module`);
}
if (problems.length > 0) {
  console.error(`weblocks-wasm: refusing to pack an incomplete package:\n  ${problems.join('\n  ')}\n` +
    'Build it first: bash scripts/build.sh (needs the toolchain of scripts/setup.sh).');
  process.exit(1);
}
console.log('check-package: the engine, the hub, the in-context fallback, the sentinel, the observeLocks client, the polyfill and the test setup bundles are in build/dist/');
