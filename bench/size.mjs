// Size of what users download: the two wasm engines and the JS shims, raw, gzip -9 and brotli.
// Browser bundles come from scripts/build-js.mjs (build/dist/); the Node shim is bundled here with
// esbuild (minified, node: built-ins external) only to measure it.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildAppBundle } from '../scripts/browser-bundles.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

function measure(label, bytes) {
  return {
    file: label,
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

async function bundled(entry) {
  const out = await build({
    entryPoints: [`${root}${entry}`], bundle: true, minify: true, format: 'esm', platform: 'node',
    write: false, logLevel: 'silent', external: ['node:*'],
  });
  return Buffer.from(out.outputFiles[0].contents);
}

export async function measureSizes() {
  const rows = [];
  for (const dir of ['build/wasm', 'build/dist']) {
    if (!existsSync(`${root}${dir}`)) continue;
    for (const name of readdirSync(`${root}${dir}`).sort()) {
      if (!/\.(wasm|js|mjs)$/.test(name)) continue;
      if (dir === 'build/dist' && name.endsWith('.wasm')) continue;   // copies of build/wasm
      rows.push(measure(`${dir}/${name}`, readFileSync(`${root}${dir}/${name}`)));
    }
  }
  try {
    const app = await buildAppBundle(build);
    for (const file of app.page) rows.push(measure(`import 'weblocks-wasm/polyfill' (an app's esbuild bundle, minified, split): ${file.path.split('/').pop()}, loaded with the page`, Buffer.from(file.contents)));
    for (const file of app.onDemand) rows.push(measure(`  its chunk ${file.path.split('/').pop()}, loaded on the first observeLocks()`, Buffer.from(file.contents)));
  } catch (error) {
    rows.push({ file: 'weblocks-wasm/polyfill (app bundle)', error: String(error.message).split('\n')[0] });
  }
  for (const entry of ['js/node/polyfill.js']) {
    if (!existsSync(`${root}${entry}`)) continue;
    try {
      rows.push(measure(`${entry} (bundled + minified by the bench)`, await bundled(entry)));
    } catch (error) {
      rows.push({ file: entry, error: String(error.message).split('\n')[0] });
    }
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.table(await measureSizes());
