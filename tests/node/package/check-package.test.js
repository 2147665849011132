// The prepack check (scripts/check-package.mjs): `npm pack` of a tree whose engine and bundles were
// not built must fail loudly, naming what is missing and the fix, instead of writing a tarball
// whose first request fails with ENOENT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function runCheck(tree) {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(tree, 'scripts/check-package.mjs')], { cwd: tree }, (error, stdout, stderr) =>
      resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
}

function unbuiltTree() {
  const tree = mkdtempSync(path.join(tmpdir(), 'weblocks-unbuilt-'));
  mkdirSync(path.join(tree, 'scripts'));
  cpSync(path.join(root, 'scripts/check-package.mjs'), path.join(tree, 'scripts/check-package.mjs'));
  cpSync(path.join(root, 'LICENSE'), path.join(tree, 'LICENSE'));
  return tree;
}

test('an unbuilt tree: the check fails, naming the missing engine and bundles and the build command', async (t) => {
  const tree = unbuiltTree();
  t.after(() => rmSync(tree, { recursive: true, force: true }));
  const { code, stderr } = await runCheck(tree);
  assert.equal(code, 1);
  assert.match(stderr, /refusing to pack an incomplete package/);
  assert.match(stderr, /build\/dist\/weblocks-engine\.wasm is missing/);
  assert.match(stderr, /build\/dist\/weblocks-hub\.js is missing/);
  assert.match(stderr, /build\/dist\/weblocks-observe\.js is missing/);
  assert.match(stderr, /bash scripts\/build\.sh/);
});

test('a wasm file that is not wasm is refused too', async (t) => {
  const tree = unbuiltTree();
  t.after(() => rmSync(tree, { recursive: true, force: true }));
  mkdirSync(path.join(tree, 'build/dist'), { recursive: true });
  cpSync(path.join(root, 'build/dist'), path.join(tree, 'build/dist'), { recursive: true });
  writeFileSync(path.join(tree, 'build/dist/weblocks-engine.wasm'), 'version https://git-lfs.github.com/spec/v1\n');
  const { code, stderr } = await runCheck(tree);
  assert.equal(code, 1);
  assert.match(stderr, /weblocks-engine\.wasm is not a wasm module/);
});

test('the built tree passes, and package.json runs the build and the check before every pack', async () => {
  const { code, stderr } = await runCheck(root);
  assert.equal(code, 0, stderr);
  const { scripts } = JSON.parse((await import('node:fs')).readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(scripts.prepack, 'bash scripts/build.sh && node scripts/check-package.mjs');
});
