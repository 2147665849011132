// The package refuses, at import, a Node outside package.json's "engines" (^20.19.0 || >=22.12.0)
// with an error that names the range and the fix, instead of failing every request later (on Node
// 18 the engine's wasm could not even be read: `TypeError: fetch failed`). The version is made to
// read as an older one in a child process, before the package is imported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function importAs(version, entry) {
  const source = `
    Object.defineProperty(process, 'versions', { value: { ...process.versions, node: ${JSON.stringify(version)} } });
    try { await import(${JSON.stringify(entry)}); console.log('loaded'); }
    catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
  });
}

for (const entry of ['./js/node/index.js', './js/node/polyfill.js', './js/node/register.js']) {
  test(`${entry} refuses Node 18.20.8 and 20.18.0 with ERR_WEBLOCKS_UNSUPPORTED_NODE naming the supported range`, async () => {
    for (const version of ['18.20.8', '20.18.0']) {
      const outcome = JSON.parse(await importAs(version, entry));
      assert.equal(outcome.code, 'ERR_WEBLOCKS_UNSUPPORTED_NODE');
      assert.match(outcome.message, new RegExp(`needs Node \\^20\\.19\\.0 or >=22\\.12\\.0 .*this is Node ${version.replaceAll('.', '\\.')}`));
    }
  });
}

test('the versions package.json names load: 20.19.0, 22.12.0, 24.11.1', async () => {
  for (const version of ['20.19.0', '22.12.0', '24.11.1']) assert.equal(await importAs(version, './js/node/index.js'), 'loaded', version);
});

// Deno and Bun report a Node version of their own: their own version decides (Deno 2.6: the first
// that says when a crashed worker ends; Bun 1.4).
function importOn(runtime, version) {
  const source = `
    Object.defineProperty(process, 'versions', { value: { ...process.versions, ${runtime}: ${JSON.stringify(version)}, node: '20.11.1' } });
    try { await import('./js/node/index.js'); console.log('loaded'); }
    catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
  });
}

test('Deno before 2.6 and Bun before 1.4 are refused, naming the version and why; Deno 2.6 and Bun 1.4 load (whatever Node version they report)', async () => {
  for (const [runtime, version, needs] of [['deno', '2.5.7', 'Deno 2.6'], ['deno', '1.46.3', 'Deno 2.6'], ['bun', '1.3.14', 'Bun 1.4']]) {
    const outcome = JSON.parse(await importOn(runtime, version));
    assert.equal(outcome.code, 'ERR_WEBLOCKS_UNSUPPORTED_NODE');
    assert.match(outcome.message, new RegExp(`needs ${needs.replace('.', '\\.')} or later.*this is ${needs.split(' ')[0]} ${version.replaceAll('.', '\\.')}`));
  }
  assert.equal(await importOn('deno', '2.6.0'), 'loaded');
  assert.equal(await importOn('bun', '1.4.5'), 'loaded');
});
