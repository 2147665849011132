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
