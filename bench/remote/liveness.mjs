// How fast a held lock reaches the next waiter when its holder crashes or goes silent (issue 51: a
// crashed client's in ≤ 1 s, a silent one's in grace + 1 ping). The waiter is a client in this
// process; it is proved queued behind the holder by the server's query() before the holder is
// stopped, and the time runs from the stop (SIGKILL, SIGSTOP, a renderer crash) to the grant.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { createLockManager } from '../../js/remote/node.js';
import { round3, summarize } from '../lib/stats.mjs';

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A holder process (holder.mjs) on `url`, resolved once it holds `name`; nextLine() reads its output. */
export async function startHolder(url, name) {
  const child = spawn(process.execPath, [new URL('./holder.mjs', import.meta.url).pathname, url, name], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = (ms) => withTimeout(lines.next().then((r) => r.value ?? '(exited)'), ms, 'holder');
  const first = await nextLine(30_000);
  if (first !== 'held') throw new Error(`holder said '${first}'`);
  return { child, nextLine };
}

// The server's snapshot shows `name` held and a request for it pending: ours, the only one.
async function queuedBehindHolder(locks, name) {
  for (let tries = 0; tries < 10_000; tries++) {
    const { held, pending } = await locks.query();
    if (held.some((l) => l.name === name) && pending.some((l) => l.name === name)) return;
  }
  throw new Error(`the waiter for '${name}' never showed as queued`);
}

/**
 * Queues a waiter for `name` (held by someone else), waits `delayMs` (not to order anything: to
 * stop at a random moment), calls stop(), and returns ms from stop to grant.
 */
export async function timeToNextHolder({ url, name, stop, timeoutMs, delayMs = 0 }) {
  const waiter = createLockManager({ url });
  let grantedAt = 0;
  const granted = waiter.request(name, () => { grantedAt = performance.now(); });
  granted.catch(() => {}); // after a timeout, close() rejects it: the timeout is the error reported
  try {
    await queuedBehindHolder(waiter, name);
    if (delayMs > 0) await new Promise((resolve) => { setTimeout(resolve, delayMs); });
    const stoppedAt = performance.now();
    stop();
    await withTimeout(granted, timeoutMs, `the waiter for '${name}'`);
    return grantedAt - stoppedAt;
  } finally {
    waiter.close();
  }
}

/** A Node holder SIGKILLed: ms from the kill to the waiter's grant. */
export async function crashRound(url, name) {
  const { child } = await startHolder(url, name);
  try {
    return await timeToNextHolder({ url, name, stop: () => child.kill('SIGKILL'), timeoutMs: 30_000 });
  } finally {
    child.kill('SIGKILL');
  }
}

/**
 * A Node holder SIGSTOPped (its socket stays open, nothing answers the pings): ms from the stop to the
 * waiter's grant; then SIGCONT, and what the holder's request rejected with once it ran again.
 */
export async function silentRound(url, name, { pingInterval, grace }) {
  const { child, nextLine } = await startHolder(url, name);
  try {
    const ms = await timeToNextHolder({ url, name, stop: () => child.kill('SIGSTOP'), timeoutMs: 2 * pingInterval + grace + 30_000,
      // Otherwise every round takes about as long, and the stops fall at one phase of the server's pings.
      delayMs: Math.random() * pingInterval });
    child.kill('SIGCONT');
    // Recorded, not thrown: a holder never told it lost its lock is a finding for the table.
    const told = await nextLine(grace + 30_000).catch((error) => error.message);
    return { ms, told };
  } finally {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
}

/**
 * The rounds, taking turns so that drift in the machine's load falls on all alike: each round one
 * SIGKILLed holder on /locks, then one SIGSTOPped holder on /locks-PING-GRACE per pair.
 */
export async function livenessRounds(port, { rounds, silentPairs }) {
  const crash = [];
  const silent = silentPairs.map((pair) => ({ ...pair, ms: [], told: [] }));
  for (let round = 0; round < rounds; round++) {
    crash.push(await crashRound(`ws://127.0.0.1:${port}/locks`, `crash-${round}`));
    for (const s of silent) {
      const { ms, told } = await silentRound(`ws://127.0.0.1:${port}/locks-${s.pingInterval}-${s.grace}`, `silent-${round}`, s);
      s.ms.push(ms);
      s.told.push(told);
    }
  }
  return { crash, silent };
}

const ms = (v) => `${round3(v).toLocaleString('en-US')} ms`;
const spread = (samples) => { const s = summarize(samples); return `${ms(s.min)} / ${ms(s.median)} / ${ms(s.max)}`; };

// The server pings all connections on one timer and drops one whose ping is unanswered at the next
// tick, so a silent holder is dropped 1 to 2 ping intervals after it stops (docs/remote.md: at most
// grace + 2 pings); the slack over grace + 1 ping is that phase plus the timers' lateness.

/** Markdown: the crash rows ([label, samples]) and the silent rows (livenessRounds' `silent`). */
export function livenessTables(crashRows, silent = []) {
  if (crashRows[0][1].length === 0) return '(liveness not measured: --liveness-rounds 0)';
  const lines = [
    `| a holder crashes (${crashRows[0][1].length} rounds): stop → the queued waiter's grant | target | min / median / max | met? |`,
    '|---|---:|---:|---|',
  ];
  for (const [label, samples] of crashRows) {
    lines.push(`| ${label} | ≤ 1,000 ms | ${spread(samples)} | ${Math.max(...samples) <= 1000 ? 'yes' : 'no'} |`);
  }
  if (silent.length === 0) return lines.join('\n');
  lines.push('', `| a holder goes silent: Node client process SIGSTOPped (${silent[0].ms.length} rounds): stop → the queued waiter's grant | grace + 1 ping | min / median / max | slack over grace + 1 ping: median / max | within grace + 2 pings? | the holder, after SIGCONT |`,
    '|---|---:|---:|---:|---|---|');
  for (const s of silent) {
    const bound = s.grace + s.pingInterval;
    const slack = summarize(s.ms.map((v) => v - bound));
    const aborts = s.told.filter((t) => t.startsWith('lost AbortError')).length;
    const other = s.told.find((t) => !t.startsWith('lost AbortError'));
    lines.push(`| pingInterval ${s.pingInterval} ms, grace ${s.grace} ms | ${ms(bound)} | ${spread(s.ms)} | ${ms(slack.median)} / ${ms(slack.max)} | ` +
      `${slack.max <= s.pingInterval ? 'yes' : `no: ${s.ms.filter((v) => v > bound + s.pingInterval).length} of ${s.ms.length} later`} | ` +
      `AbortError in ${aborts} of ${s.told.length}${other ? `; once: '${other.replace(/\|/g, '/').slice(0, 100)}'` : ''} |`);
  }
  return lines.join('\n');
}
