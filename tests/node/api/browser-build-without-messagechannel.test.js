// The browser build loaded where there is no MessageChannel (jest's jsdom environment resolves the
// package's "browser" export condition, and its window has none): every request rejects with a
// NotSupportedError naming the fix, not `ReferenceError: MessageChannel is not defined`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('the browser build without MessageChannel: NotSupportedError naming weblocks-wasm/test-setup and customExportConditions', async () => {
  const source = `
    delete globalThis.MessageChannel;
    const { locks } = await import('./js/browser/index.js');
    const outcome = await locks.request('x', () => 'granted').then((value) => ({ value }), (error) => ({ name: error.name, message: error.message }));
    console.log(JSON.stringify(outcome));`;
  const stdout = await new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', source], { cwd: root, timeout: 30_000 },
      (error, out) => (error ? reject(error) : resolve(out)));
  });
  const outcome = JSON.parse(stdout.trim().split('\n').pop());
  assert.equal(outcome.name, 'NotSupportedError');
  assert.match(outcome.message, /weblocks-wasm\/test-setup/);
  assert.match(outcome.message, /customExportConditions: \['node'\]/);
});
