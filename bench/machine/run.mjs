// The cross-process benchmarks: this project's machine lock space (js/machine: the hub in its own
// process, clients over a Unix domain socket) side by side with the in-process shared-memory host
// (threads of one process: what crossing processes costs) and with proper-lockfile (npm), the
// common way Node programs lock across processes. Same round-by-round turns as bench/node.
import { fileURLToPath } from 'node:url';
import { runComparisons, NODE24, NODE_SYSTEM } from '../node/run.mjs';

const script = fileURLToPath(new URL('./scenario.mjs', import.meta.url));

export const MACHINE_CONTENDERS = {
  'ours-machine-node24': { impl: 'machine', node: NODE24, script, label: 'ours across processes (machine lock space), Node 24' },
  'ours-machine-node20': { impl: 'machine', node: NODE_SYSTEM, script, label: 'ours across processes (machine lock space), Node 20' },
  'threads-node24': { impl: 'ours', node: NODE24, label: 'ours in one process (shared-memory host, threads), Node 24' },
  'proper-lockfile': { impl: 'proper-lockfile', node: NODE24, script, label: 'proper-lockfile (npm, lock directory, 1 ms polling), Node 24' },
  'socket-echo': { impl: 'socket-echo', node: NODE24, script, label: 'no lock: one bare round trip to another process over a Unix domain socket, Node 24' },
};

// WEBLOCKS_BENCH_BEFORE=<a built checkout of another commit>: that commit's machine lock space as one
// more contender, for a before/after in one run (a change's cost, measured side by side).
const before = process.env.WEBLOCKS_BENCH_BEFORE;
if (before) {
  MACHINE_CONTENDERS['before-machine-node24'] = { impl: 'machine', node: NODE24, script: `${before}/bench/machine/scenario.mjs`, label: `the same at ${before} (before), Node 24` };
}
const ALL = ['ours-machine-node24', ...(before ? ['before-machine-node24'] : []), 'ours-machine-node20', 'threads-node24', 'proper-lockfile'];
export const MACHINE_COMPARISONS = [
  { id: 'machine-uncontended', scenario: 'uncontended', title: 'Across processes: uncontended request() (acquire + release, nobody else wants the lock)', unit: 'µs/request', better: 'lower', contenders: [...ALL, 'socket-echo'] },
  { id: 'machine-handoff-2', scenario: 'handoff-2', title: 'Across processes: 2 processes handing one exclusive lock back and forth (the in-process host: 2 threads)', unit: 'handoffs/s', better: 'higher', contenders: ALL },
];

export function runMachineBench(options = {}) {
  return runComparisons({ group: 'machine', comparisons: MACHINE_COMPARISONS, table: MACHINE_CONTENDERS, cpu: false, timeoutMs: 60_000, ...options });
}
