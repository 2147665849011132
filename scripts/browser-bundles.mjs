// The browser bundles of build/dist/ and how esbuild makes them: shared by scripts/build-js.mjs,
// the size budget test (tests/node/package/size-budget.test.js) and the bench (bench/size.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function browserOptions({ minify = true } = {}) {
  return {
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
}

/** build/dist/ file -> its entry. */
export const BROWSER_BUNDLES = {
  'weblocks-polyfill.js': 'js/browser/classic-polyfill.js',
  'weblocks-hub.js': 'js/hub/classic-hub.js',
  'weblocks-in-context.js': 'js/browser/classic-in-context.js',
  'weblocks-sentinel.js': 'js/browser/sentinel-worker.js',
  'weblocks-observe.js': 'js/browser/classic-observe.js',
};

/**
 * What an app's bundler makes of `import 'weblocks-wasm/polyfill'` (the "browser" export condition,
 * js/browser/bundled-polyfill.js): esbuild, minified, code splitting on (as an app's bundler splits
 * a dynamic import(): the observeLocks client is a chunk of its own), as an app would ship it. The
 * entry's output file is APP_ENTRY_OUTPUT (the others are chunks loaded on demand).
 */
export function appBundleOptions() {
  return {
    entryPoints: [path.join(root, 'js/browser/bundled-polyfill.js')],
    bundle: true, format: 'esm', platform: 'browser', minify: true, target: 'es2020', splitting: true,
    outdir: path.join(root, 'build/app-bundle'), write: false, logLevel: 'silent', legalComments: 'none',
  };
}

export const APP_ENTRY_OUTPUT = 'bundled-polyfill.js';
