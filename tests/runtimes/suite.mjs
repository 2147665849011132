// The behavioural suite across threads, on whichever runtime runs this file (Bun, Deno, Node),
// with one kind of worker: `<runtime> tests/runtimes/suite.mjs <default|named|web>`. A runner of
// its own (node:test differs between runtimes): cases run one after another, each with a time
// limit; one line per case, then a summary line as JSON. The process must end by itself:
// tests/runtimes/run.mjs counts one that has to be killed as a failure.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createNodeThreadsHost } from '../node/suite/hosts/node-threads.js';
import { defineLockSuite } from '../node/suite/index.js';

const kind = process.argv[2] ?? 'default';
const CASE_TIMEOUT_MS = 60_000;
const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : process.versions.deno ? `Deno ${process.versions.deno}` : `Node ${process.versions.node}`;

const cases = [];
const storage = new AsyncLocalStorage();
defineLockSuite({
  test: (name, fn) => cases.push({ name, fn }),
  note: (message) => console.log(`# ${message}`),
}, createNodeThreadsHost({
  kind,
  name: `${runtime}, ${kind} workers`,
  webidl: kind === 'default', // the argument cases: once per runtime (the same js/api code whatever the workers)
  asyncContext: { run: (value, fn) => storage.run(value, fn), get: () => storage.getStore() },
}));

function withinLimit(promise, ms) {
  let timer;
  const limit = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`no outcome within ${ms} ms`)), ms); });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

const failed = [];
const started = performance.now();
for (const { name, fn } of cases) {
  const caseStarted = performance.now();
  try {
    await withinLimit(Promise.resolve().then(fn), CASE_TIMEOUT_MS);
    console.log(`ok ${name} (${(performance.now() - caseStarted).toFixed(0)} ms)`);
  } catch (error) {
    failed.push(name);
    console.log(`not ok ${name}: ${error?.stack ?? error}`);
  }
}
console.log(JSON.stringify({ runtime, kind, cases: cases.length, failed, ms: Math.round(performance.now() - started) }));
process.exitCode = failed.length === 0 ? 0 : 1;
