// The typed protocol (js/hub/protocol.js typedefs, checked by `tsc -p tsconfig.checkjs.json` in
// scripts/test.sh) catches a message built wrong where messages are built: through the context's
// sender (HubBackend.send) and the hub's (a connection's send). Scratch files that build messages
// through both are checked with the project's settings: one with a field missing and fields of the
// wrong type must fail on exactly those lines, the same messages built right must pass.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');

// Inside the repository (node_modules and @types/node resolve from there), in build/ (ignored by
// git, so no repository check that lists files under tests/ meets it half-written).
function scratchDir() {
  mkdirSync(path.join(repo, 'build'), { recursive: true });
  return mkdtempSync(path.join(repo, 'build/protocol-types-'));
}

// `{{BAD:...|GOOD:...}}` stands for the wrong and the right form of one line.
const SOURCE = `import { C, H, PROTOCOL_VERSION } from '../../js/hub/protocol.js';
/** @import { HubBackend } from '../../js/browser/hub-backend.js' */
/** @import { HubConnection } from '../../js/hub/connection.js' */

/** @param {HubBackend} backend @param {HubConnection} conn */
export function build(backend, conn) {
  {{BAD:backend.send({ t: C.request, token: 1, mode: 'exclusive', wait: 'wait' });|GOOD:backend.send({ t: C.request, token: 1, name: 'a', mode: 'exclusive', wait: 'wait' });}}
  {{BAD:backend.send({ t: C.request, token: 1, name: 5, mode: 'exclusive', wait: 'wait' });|GOOD:backend.send({ t: C.request, token: 1, name: '5', mode: 'exclusive', wait: 'wait' });}}
  {{BAD:backend.toHub({ t: C.release, token: 'x' });|GOOD:backend.toHub({ t: C.release, token: 1 });}}
  {{BAD:conn.send({ t: H.granted });|GOOD:conn.send({ t: H.granted, token: 1 });}}
  {{BAD:conn.send({ t: H.welcome, v: PROTOCOL_VERSION, hubId: 'h', clientId: 'c', reclaimed: ['maybe'] });|GOOD:conn.send({ t: H.welcome, v: PROTOCOL_VERSION, hubId: 'h', clientId: 'c', reclaimed: ['held'] });}}
  {{BAD:conn.send({ t: H.failed, token: 1, name: 'AbortError', message: 'm', extra: true });|GOOD:conn.send({ t: H.failed, token: 1, name: 'AbortError', message: 'm' });}}
}
`;

function variant(kind) {
  return SOURCE.replace(/\{\{BAD:(.*)\|GOOD:(.*)\}\}/g, (_, bad, good) => (kind === 'bad' ? bad : good));
}

/** Runs tsc with tsconfig.checkjs.json's settings on `source` alone: { code, output, file }. */
async function check(dir, name, source) {
  const file = path.join(dir, `${name}.js`);
  writeFileSync(file, source);
  const config = path.join(dir, `tsconfig.${name}.json`);
  writeFileSync(config, JSON.stringify({
    extends: path.relative(dir, path.join(repo, 'tsconfig.checkjs.json')),
    include: [`${name}.js`, path.relative(dir, path.join(repo, 'scripts/checkjs-env.d.ts'))],
  }));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: repo });
    return { code: 0, output: stdout, file };
  } catch (error) {
    if (typeof error.code !== 'number') throw error;
    return { code: error.code, output: `${error.stdout}${error.stderr}`, file };
  }
}

test('a message built with a missing field or a field of the wrong type fails the type check on its line, and built right passes', async () => {
  const dir = scratchDir();
  try {
    const [bad, good] = await Promise.all([check(dir, 'bad', variant('bad')), check(dir, 'good', variant('good'))]);
    assert.equal(good.code, 0, `the well-built messages should pass:\n${good.output}`);
    assert.notEqual(bad.code, 0, 'the badly built messages should fail the type check');

    const lines = variant('bad').split('\n');
    const badLines = lines.flatMap((line, i) => (/(backend|conn)\.(send|toHub)\(/.test(line) ? [i + 1] : []));
    assert.equal(badLines.length, 6);
    const relative = path.relative(repo, bad.file);
    const errors = bad.output.split('\n').filter((line) => line.includes(' error TS'));
    const flagged = new Set(errors.map((line) => {
      assert.ok(line.startsWith(`${relative}(`), `an error outside the scratch file (the project itself should type-check):\n${line}`);
      return Number(line.slice(relative.length + 1).split(',')[0]);
    }));
    assert.deepEqual([...flagged].sort((a, b) => a - b), badLines, `each bad message, and nothing else, is an error:\n${bad.output}`);
    // The missing field and the wrong type are named.
    assert.match(bad.output, /Property 'name' is missing/);
    assert.match(bad.output, /Type 'number' is not assignable to type 'string'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
