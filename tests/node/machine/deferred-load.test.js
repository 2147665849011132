// The machine lock space's code (js/machine/, about 10 ms of module loading in each new thread) is
// loaded only by threads of a process that opted in, and only on their first use of navigator.locks
// (js/node/deferred-backend.js); other threads load none of js/machine/ (js/node/chosen-space.js says
// whether the process opted in).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshSpace } from './support.js';

const RECORD = fileURLToPath(new URL('./fixtures/record-loads.mjs', import.meta.url));
const LOAD_PACKAGE = fileURLToPath(new URL('./fixtures/load-package.mjs', import.meta.url));

/** Runs load-package.mjs with `args` in a process of its own; returns the package modules it loaded (paths from the repository). */
function loadsOf(t, env, args) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'wl-loads-'));
  t.after(() => fs.rmSync(folder, { recursive: true, force: true }));
  const record = path.join(folder, 'loads.txt');
  const run = spawnSync(process.execPath, ['--import', RECORD, LOAD_PACKAGE, ...args], { env: { ...env, RECORD_LOADS: record }, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const root = new URL('../../../', import.meta.url).href;
  return fs.readFileSync(record, 'utf8').split('\n').filter((url) => url.startsWith(root)).map((url) => url.slice(root.length));
}

const machineModules = (loads) => [...new Set(loads.filter((file) => file.startsWith('js/machine/')))];

test('threads of a process that did not opt in never load the machine lock space', (t) => {
  const env = { ...process.env };
  delete env.WEBLOCKS_MACHINE_SPACE;
  delete env.NODE_OPTIONS;
  const loads = loadsOf(t, env, ['request']);
  assert.equal(loads.filter((file) => file === 'js/node/index.js').length, 2, 'the hook saw both threads load the package');
  assert.deepEqual(machineModules(loads), []);
});

test('threads of a process that opted in load it on their first request, not before', (t) => {
  const space = freshSpace(t);
  assert.deepEqual(machineModules(loadsOf(t, space.env, [])), [], 'imported and installed, no request made');
  const loads = machineModules(loadsOf(t, space.env, ['request']));
  assert.ok(loads.includes('js/machine/locks.js') && loads.includes('js/machine/machine-backend.js'), loads.join(', '));
});
