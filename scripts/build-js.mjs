#!/usr/bin/env node
// Builds the browser bundles into build/dist/ (esbuild):
//   weblocks-polyfill.js   classic script: <script src> or importScripts() installs navigator.locks
//   weblocks-hub.js        the hub (SharedWorker, classic script: every browser with SharedWorker runs it)
//   weblocks-sentinel.js   a context's sentinel (a worker of its own that answers the hub for it), served
//                          next to the hub: a same-origin script, as `worker-src 'self'` wants
//   weblocks-engine*.wasm  copies of build/wasm/*, so that build/dist/ can be served on its own
//   weblocks-test-setup.cjs  the Node test setup (js/node/test-setup.js) as CommonJS, for jest's
//                          own require(), which cannot load ES modules
// Usage: node scripts/build-js.mjs [--minify]
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'build', 'dist');
const minify = process.argv.includes('--minify');
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  format: 'iife',
  platform: 'browser',
  // ES2019 syntax (private fields, ?? and ?. are lowered): browsers older than native Web Locks.
  target: 'es2019',
  external: ['node:*'],
  minify,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  // The engine only takes this path in Node; the bundles always pass explicit wasm URLs.
  define: { 'import.meta.url': '"about:blank"' },
};

// CommonJS has no import.meta: the bundle's own URL (it sits in build/dist/, next to the engine's
// wasm, which js/engine finds at ../../build/dist/ from it, that is, the same folder).
const nodeCjs = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify,
  legalComments: 'none',
  logLevel: 'warning',
  banner: { js: "const __weblocksModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__weblocksModuleUrl' },
};

await Promise.all([
  build({ ...nodeCjs, entryPoints: [path.join(root, 'js/node/test-setup.js')], outfile: path.join(out, 'weblocks-test-setup.cjs') }),
  build({ ...common, entryPoints: [path.join(root, 'js/browser/classic-polyfill.js')], outfile: path.join(out, 'weblocks-polyfill.js') }),
  build({ ...common, entryPoints: [path.join(root, 'js/hub/classic-hub.js')], outfile: path.join(out, 'weblocks-hub.js') }),
  build({ ...common, entryPoints: [path.join(root, 'js/browser/sentinel-worker.js')], outfile: path.join(out, 'weblocks-sentinel.js') }),
]);

for (const file of ['weblocks-engine.wasm', 'weblocks-engine-shared.wasm']) {
  const from = path.join(root, 'build', 'wasm', file);
  if (existsSync(from)) copyFileSync(from, path.join(out, file));
  else console.warn(`build-js: ${path.relative(root, from)} is missing (run scripts/build-engine.sh): the bundles need it at run time`);
}
console.log(`build-js: wrote ${path.relative(root, out)}/weblocks-polyfill.js, weblocks-hub.js, weblocks-sentinel.js, weblocks-test-setup.cjs and the engine's wasm`);
