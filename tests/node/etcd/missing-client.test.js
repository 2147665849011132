// Without the optional peer dependency etcd3, an etcd lock manager says what to install at the
// first request (the package itself loads without it), and the preload says what to set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('without etcd3 installed, the first request rejects with an error naming the package to install', () => {
  // A copy of js/ with no node_modules anywhere above it: etcd3 cannot be resolved.
  const dir = mkdtempSync(join(tmpdir(), 'weblocks-no-etcd3-'));
  try {
    cpSync(join(root, 'js'), join(dir, 'js'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', `
      const { createLockManager } = await import(${JSON.stringify(join(dir, 'js/etcd/index.js'))});
      const locks = createLockManager({ etcd: { hosts: ['http://127.0.0.1:1'] } });
      const outcome = await locks.request('a', () => 'granted').then((v) => ({ ok: v }), (e) => ({ code: e.code, message: e.message }));
      console.log(JSON.stringify(outcome));
    `], { cwd: dir, encoding: 'utf8' });
    const outcome = JSON.parse(output.trim());
    assert.equal(outcome.code, 'ERR_WEBLOCKS_ETCD3_MISSING');
    assert.match(outcome.message, /npm install etcd3/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the etcd preload without WEBLOCKS_ETCD_ENDPOINTS stops at startup, naming the variable', () => {
  const env = { ...process.env };
  delete env.WEBLOCKS_ETCD_ENDPOINTS;
  const run = spawnSync(process.execPath, ['--import', join(root, 'js/etcd/register.js'), '-e', '0'], { env, encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /set WEBLOCKS_ETCD_ENDPOINTS/);
});

test('bad etcd options are refused at creation with the fix', async () => {
  const { createLockManager } = await import('../../../js/etcd/index.js');
  assert.throws(() => createLockManager({}), { name: 'TypeError', message: /etcd = \{ hosts/ });
  assert.throws(() => createLockManager({ etcd: { hosts: [] } }), { name: 'TypeError', message: /etcd\.hosts/ });
  assert.throws(() => createLockManager({ etcd: { hosts: 'http://h:2379', leaseTtl: 0.5 } }), { name: 'RangeError', message: /leaseTtl/ });
  assert.throws(() => createLockManager({ etcd: { hosts: 'http://h:2379', leaseTtl: 2, keepAliveInterval: 2000 } }), { name: 'RangeError', message: /keepAliveInterval/ });
});
