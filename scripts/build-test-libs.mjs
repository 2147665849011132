#!/usr/bin/env node
// Bundles the published libraries the real-library specs run (tests/browser/libs-*.spec.js), each
// unmodified from node_modules, into build/libs/ as ES modules the test pages import (esbuild;
// never committed). Run by the Playwright global setup; `node scripts/build-test-libs.mjs` by hand.
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'build', 'libs');

// file in build/libs/ -> what the test pages import from the library's public entry points.
const LIBRARIES = {
  'supabase-auth-js.js': "export { navigatorLock, NavigatorLockAcquireTimeoutError } from '@supabase/auth-js';",
  'broadcast-channel.js': "export { BroadcastChannel, createLeaderElection } from 'broadcast-channel';",
  'tab-election.js': "export { Tab } from 'tab-election'; export { Hub, Spoke } from 'tab-election/hub';",
};

await Promise.all(Object.entries(LIBRARIES).map(([file, contents]) => build({
  stdin: { contents, resolveDir: root, sourcefile: `${file} (entry)` },
  outfile: path.join(out, file),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2020',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
})));
console.log(`build-test-libs: wrote ${Object.keys(LIBRARIES).map((f) => `build/libs/${f}`).join(', ')}`);
