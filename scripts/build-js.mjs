#!/usr/bin/env node
// Builds the browser bundles into build/dist/ (esbuild), minified, each with its source map (.map):
//   weblocks-polyfill.js   the classic loader (<script src>, importScripts()): where navigator.locks is
//                          missing or forced, installs it at once and loads weblocks-polyfill-sync.js
//   weblocks-polyfill-sync.js the whole classic polyfill, at once (service workers; the loader's rest)
//   weblocks-hub.js        the hub (SharedWorker, classic script: every browser with SharedWorker runs it)
//   weblocks-in-context.js the in-context fallback (a hub and the engine binding in the context
//                          itself), loaded by the polyfill only where the platform offers no hub
//   weblocks-sentinel.js   a context's sentinel (a worker of its own that answers the hub for it), served
//                          next to the hub: a same-origin script, as `worker-src 'self'` wants
//   weblocks-observe.js    the observeLocks client, loaded by the polyfill on the first observeLocks() call
//   weblocks-engine*.wasm  copies of build/wasm/*, so that build/dist/ can be served on its own
//   weblocks-test-setup.cjs  the Node test setup (js/node/test-setup.js) as CommonJS, for jest's
//                          own require(), which cannot load ES modules
// Usage: node scripts/build-js.mjs [--no-minify]   (readable bundles, to debug without source maps)
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserOptions, BROWSER_BUNDLES } from './browser-bundles.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'build', 'dist');
const minify = !process.argv.includes('--no-minify');
mkdirSync(out, { recursive: true });

const common = browserOptions({ minify });

// CommonJS has no import.meta: the bundle's own URL (it sits in build/dist/, next to the engine's
// wasm, which js/engine finds at ../../build/dist/ from it, that is, the same folder).
const nodeCjs = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: "const __weblocksModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__weblocksModuleUrl' },
};

await Promise.all([
  build({ ...nodeCjs, entryPoints: [path.join(root, 'js/node/test-setup.js')], outfile: path.join(out, 'weblocks-test-setup.cjs') }),
  ...Object.entries(BROWSER_BUNDLES).map(([file, entry]) =>
    build({ ...common, entryPoints: [path.join(root, entry)], outfile: path.join(out, file) })),
]);

for (const file of ['weblocks-engine.wasm', 'weblocks-engine-shared.wasm']) {
  const from = path.join(root, 'build', 'wasm', file);
  if (existsSync(from)) copyFileSync(from, path.join(out, file));
  else console.warn(`build-js: ${path.relative(root, from)} is missing (run scripts/build-engine.sh): the bundles need it at run time`);
}
console.log(`build-js: wrote ${path.relative(root, out)}/weblocks-polyfill.js, weblocks-polyfill-sync.js, weblocks-hub.js, weblocks-in-context.js, weblocks-sentinel.js, weblocks-observe.js (minified, with source maps), weblocks-test-setup.cjs and the engine's wasm`);
