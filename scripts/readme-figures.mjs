#!/usr/bin/env node
// The README's page-load figures come from the bench, not from a hand: this writes them from
// bench/results/page-load.json (node bench/page-load.mjs) between the README's markers.
//   node scripts/readme-figures.mjs           rewrite the block
//   node scripts/readme-figures.mjs --check   exit 1 if the block is not what the results say
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const BEGIN = '<!-- page-load figures: written by node scripts/readme-figures.mjs from bench/results/page-load.json -->';
export const END = '<!-- end of page-load figures -->';

const CASES = { fresh: 'first tab, fresh profile', 'second-tab': 'a second tab', worker: 'a dedicated worker', 'reload-only': 'reload of the only tab', 'reload-other': 'reload beside another tab' };
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** A crashed tab's lock reaching a waiter (ms from the crash), where the results have it. */
function crashRow(results) {
  if (!Array.isArray(results.crashRelease)) return [];
  const by = Object.fromEntries(results.crashRelease.map((c) => [c.id, c.summary.median]));
  return [`| a crashed tab's lock reaches a waiter (from the crash) | ${by.ours.toFixed(0)} ms | ${by.native.toFixed(0)} ms |`];
}

/** The README block for these results. */
export function figures(results) {
  const size = (start) => results.sizes.find((row) => row.label.startsWith(start));
  const grant = results.firstGrant.map((row) => {
    const by = Object.fromEntries(row.contenders.map((c) => [c.id, c.summary.median]));
    return `| ${CASES[row.case]} | ${by.ours.toFixed(0)} ms | ${by.native.toFixed(0)} ms |`;
  });
  return [
    BEGIN,
    // Results since the loader (issue 49) list the loader and the rest apart; older ones, one polyfill.
    ...(size('ours: weblocks-polyfill-sync.js') ? [
      `What a page downloads (gzip): ${kb(size('ours: weblocks-polyfill.js').gzip)} of loader where \`navigator.locks\` is native (${kb(size("ours: import 'weblocks-wasm/polyfill' (").gzip)} in an app's bundle),`,
      `${kb(size('ours: weblocks-polyfill.js').gzip + size('ours: weblocks-polyfill-sync.js').gzip)} where it is needed (${kb(size("ours: import 'weblocks-wasm/polyfill' (").gzip + size("ours: import 'weblocks-wasm/polyfill': the rest").gzip)}),`,
    ] : [`What a page downloads (gzip): ${kb(size('ours: weblocks-polyfill.js').gzip)} of polyfill (${kb(size("ours: import 'weblocks-wasm/polyfill'").gzip)} in an app's bundle),`]),
    `then once per origin the hub, ${kb(size('ours: weblocks-hub.js').gzip)}, and its engine, ${kb(size('ours: weblocks-engine.wasm').gzip)}.`,
    `First grant in Chromium (median ms from \`request()\` to the callback, ${results.rounds} runs, ${results.date.slice(0, 10)};`,
    '[bench/results/page-load.md](bench/results/page-load.md)):',
    '',
    '| case | polyfill | native |',
    '|---|---:|---:|',
    ...grant,
    ...crashRow(results),
    END,
  ].join('\n');
}

function readmeWith(readme, block) {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no block between ${BEGIN} and ${END}`);
  return readme.slice(0, start) + block + readme.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = JSON.parse(readFileSync(`${root}bench/results/page-load.json`, 'utf8'));
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const updated = readmeWith(readme, figures(results));
  if (process.argv.includes('--check')) {
    if (updated !== readme) { console.error('README.md: the page-load figures differ from bench/results/page-load.json: run node scripts/readme-figures.mjs'); process.exit(1); }
  } else {
    writeFileSync(`${root}README.md`, updated);
  }
}
