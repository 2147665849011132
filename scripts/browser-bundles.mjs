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
    // Blocks labelled NODE_ONLY run only where the package's files are read from disk.
    dropLabels: ['NODE_ONLY'],
  };
}

/** build/dist/ file -> its entry. */
export const BROWSER_BUNDLES = {
  'weblocks-polyfill.js': 'js/browser/classic-loader.js',
  'weblocks-polyfill-sync.js': 'js/browser/classic-polyfill.js',
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

/**
 * An app's bundle, split (esbuild's `build`, options over appBundleOptions()): `page` is what loads
 * before the first lock, the entry and the chunks it imports statically (each its own download);
 * `onDemand` the chunks it import()s. Each is a list of { path, contents, inputs }.
 */
export async function buildAppBundle(build, options = {}) {
  const result = await build({ ...appBundleOptions(), ...options, metafile: true });
  const outputs = result.metafile.outputs;
  const fileOf = (output) => result.outputFiles.find((file) => path.relative(root, file.path) === output);
  const page = [Object.keys(outputs).find((output) => output.endsWith(`/${APP_ENTRY_OUTPUT}`))];
  for (let i = 0; i < page.length; i++) {
    for (const { path: imported, kind } of outputs[page[i]].imports) if (kind === 'import-statement' && !page.includes(imported)) page.push(imported);
  }
  const described = (output) => ({ path: output, contents: fileOf(output).contents, inputs: Object.keys(outputs[output].inputs) });
  return { page: page.map(described), onDemand: Object.keys(outputs).filter((output) => !page.includes(output)).map(described) };
}
