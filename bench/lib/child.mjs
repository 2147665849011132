// Runs one measurement in a child process with a time limit. The child prints one JSON line
// prefixed with RESULT_PREFIX; a child that dies or never answers becomes a recorded outcome
// ('aborted' / 'hung' / 'failed') instead of a number, so a broken contender cannot stop the run.
import { spawn } from 'node:child_process';

export const RESULT_PREFIX = '@@bench-result ';

// Children still running; killed if the bench itself is stopped, so none outlives it.
const running = new Set();
function killRunning() { for (const child of running) child.kill('SIGKILL'); }
process.once('exit', killRunning);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => { process.stderr.write(`bench: stopped by ${signal}\n`); killRunning(); process.exit(130); });
}

/** Prints a result line from inside a child. */
export function reportResult(value) {
  process.stdout.write(RESULT_PREFIX + JSON.stringify(value) + '\n');
}

/**
 * -> { status: 'ok', value } | { status: 'aborted' | 'hung' | 'failed', detail }
 */
export function runChild(command, args, { timeoutMs = 60_000, env = process.env, cwd } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      // The most telling line: the first that names an error, else the last one.
      const lines = stderr.trim().split('\n').map((l) => l.trim()).filter(Boolean);
      const tail = (lines.find((l) => /(Error|Abort|Fatal|fatal|assert)/.test(l)) ?? lines.at(-1) ?? '').slice(0, 240);
      if (line && code === 0) {
        resolve({ status: 'ok', value: JSON.parse(line.slice(RESULT_PREFIX.length)) });
      } else if (timedOut) {
        resolve({ status: 'hung', detail: `no answer within ${timeoutMs} ms` });
      } else if (signal || (code !== 0 && code !== 1)) {
        resolve({ status: 'aborted', detail: `exit ${signal ?? code}${tail ? ': ' + tail : ''}` });
      } else {
        resolve({ status: 'failed', detail: `exit ${code}${tail ? ': ' + tail : ''}` });
      }
    });
  });
}

/**
 * A child that answers commands one line at a time (bench/node/scenario.mjs), so that several
 * contenders can take turns round by round. Once it dies or misses a deadline, every later
 * ask() gets that same outcome at once.
 */
export class ChildSession {
  constructor(command, args, { env = process.env, cwd } = {}) {
    this.child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(this.child);
    this.buffer = '';
    this.stderr = '';
    this.answers = [];     // result lines not yet asked for
    this.waiter = null;    // { resolve } of the ask in flight
    this.outcome = null;   // the failure, once there is one
    this.child.stdout.on('data', (chunk) => {
      this.buffer += chunk;
      let newline;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.startsWith(RESULT_PREFIX)) this.deliver({ status: 'ok', value: JSON.parse(line.slice(RESULT_PREFIX.length)) });
      }
    });
    this.child.stderr.on('data', (chunk) => { this.stderr += chunk; });
    this.child.stdin.on('error', () => {});
    this.child.on('close', (code, signal) => {
      running.delete(this.child);
      if (this.outcome !== null) return;
      const lines = this.stderr.trim().split('\n').map((l) => l.trim()).filter(Boolean);
      const tail = (lines.find((l) => /(Error|Abort|Fatal|fatal|assert)/.test(l)) ?? lines.at(-1) ?? '').slice(0, 240);
      const status = signal || (code !== 0 && code !== 1) ? 'aborted' : 'failed';
      this.fail({ status, detail: `exit ${signal ?? code}${tail ? ': ' + tail : ''}` });
    });
  }

  deliver(answer) {
    if (this.waiter) { const { resolve } = this.waiter; this.waiter = null; resolve(answer); } else this.answers.push(answer);
  }

  fail(outcome) {
    if (this.outcome !== null) return;
    this.outcome = outcome;
    if (this.waiter) { const { resolve } = this.waiter; this.waiter = null; resolve(outcome); }
  }

  ask(line, timeoutMs) {
    if (this.answers.length) return Promise.resolve(this.answers.shift());
    if (this.outcome !== null) return Promise.resolve(this.outcome);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.fail({ status: 'hung', detail: `no answer to '${line}' within ${timeoutMs} ms` });
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.waiter = { resolve: (answer) => { clearTimeout(timer); resolve(answer); } };
      this.child.stdin.write(line + '\n');
    });
  }

  close() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
