// The scripts no test imports (benchmarks, set-up and build scripts) still parse: a bench that
// no longer runs was committed once (bench/page-load.mjs, a quote left unescaped in its report's
// text), and only the next bench run found it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function scriptsUnder(folder) {
  return readdirSync(`${root}${folder}`, { recursive: true })
    .filter((file) => /\.(mjs|cjs)$/.test(file) && !file.includes('node_modules'))
    .map((file) => `${folder}/${file}`);
}

test('every script under bench/ and scripts/ parses', () => {
  const scripts = [...scriptsUnder('bench'), ...scriptsUnder('scripts')];
  assert.ok(scripts.length > 10, `found ${scripts.length} scripts`);
  const broken = [];
  for (const script of scripts) {
    try {
      execFileSync(process.execPath, ['--check', `${root}${script}`], { stdio: 'pipe' });
    } catch (error) {
      broken.push(`${script}: ${String(error.stderr).split('\n').find((line) => /Error/.test(line)) ?? error.message}`);
    }
  }
  assert.deepEqual(broken, []);
});
