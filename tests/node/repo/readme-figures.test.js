// The README's page-load figures are the bench's (bench/results/page-load.json), written by
// scripts/readme-figures.mjs: never copied by hand, never stale.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { figures, BEGIN, END } from '../../../scripts/readme-figures.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test("the README's page-load figures are exactly what bench/results/page-load.json says", () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const shown = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
  const results = JSON.parse(readFileSync(`${root}bench/results/page-load.json`, 'utf8'));
  assert.equal(shown, figures(results), 'run node scripts/readme-figures.mjs after node bench/page-load.mjs');
});
