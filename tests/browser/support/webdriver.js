// A minimal W3C WebDriver (classic, JSON over HTTP) client: the few commands the WebKit specs need
// from WebKitWebDriver (new session, new window, navigate, close window, delete session). Written
// against the spec with fetch rather than taken from npm: the clients there bring large
// dependency trees for these five endpoints, and WebKit ends a session when any page's process
// crashes, so the pages are driven over our own channel anyway (engines/webkit.js).
import { spawn } from 'node:child_process';
import net from 'node:net';
import { appendFileSync } from 'node:fs';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => resolve(port)); });
  });
}

export class WebDriverError extends Error {
  constructor(command, value) {
    super(`WebDriver ${command}: ${value?.error ?? 'error'}: ${value?.message ?? JSON.stringify(value)}`);
    this.code = value?.error;
  }
}

/** Starts a driver binary on a free loopback port; resolves when it answers /status. */
export async function startDriver(binary, args = []) {
  const port = await freePort();
  // WEBLOCKS_WEBDRIVER_CORES=<dir>: the driver and the browsers it starts dump core into <dir>
  // when they crash (how the MiniBrowser's crash at start was read: engines/webkit.js).
  const cores = process.env.WEBLOCKS_WEBDRIVER_CORES;
  const child = cores
    ? spawn('sh', ['-c', 'ulimit -c unlimited; exec "$@"', 'sh', binary, `--port=${port}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'], cwd: cores })
    : spawn(binary, [`--port=${port}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  // WEBLOCKS_WEBDRIVER_LOG=<file>: the driver's stderr (and its browsers') appended there, every line.
  const log = process.env.WEBLOCKS_WEBDRIVER_LOG;
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
    if (log) appendFileSync(log, `[${new Date().toISOString()} ${binary} ${child.pid}] ${d}`);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${binary} exited (${child.exitCode}): ${stderr}`);
    try { if ((await fetch(`${url}/status`)).ok) break; } catch { /* not listening yet */ }
    if (Date.now() > deadline) { child.kill(); throw new Error(`${binary} did not answer on ${url}: ${stderr}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, pid: child.pid, stderr: () => stderr, stop: () => new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', r); child.kill(); } }) };
}

/** One WebDriver session. Commands are sent one at a time (a session serves one command at once). */
export class WebDriverSession {
  /**
   * A new session; `timeoutMs`: no answer by then rejects with a TimeoutError; `signal`: aborting
   * it rejects with its reason.
   */
  static async create(driverUrl, capabilities, { timeoutMs, signal } = {}) {
    const signals = [signal, timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)].filter(Boolean);
    const response = await fetch(`${driverUrl}/session`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: capabilities } }),
      signal: signals.length === 0 ? undefined : AbortSignal.any(signals),
    });
    const body = await response.json();
    if (!response.ok) throw new WebDriverError('new session', body.value);
    return new WebDriverSession(driverUrl, body.value.sessionId);
  }

  constructor(driverUrl, id) {
    this.base = `${driverUrl}/session/${id}`;
    this.queue = Promise.resolve();
    this.current = null;
  }

  /** Runs `task` after the commands before it have been answered. */
  enqueue(task) {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => {});
    return result;
  }

  send(method, path, body) { return this.enqueue(() => this.sendNow(method, path, body)); }

  /** Runs `path` on window `handle`, switching to it first when another window is current. */
  inWindow(handle, method, path, body) {
    return this.enqueue(async () => {
      if (this.current !== handle) {
        await this.sendNow('POST', '/window', { handle });
        this.current = handle;
      }
      return this.sendNow(method, path, body);
    });
  }

  async sendNow(method, path, body) {
    const response = await fetch(`${this.base}${path}`, {
      method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const value = (await response.json()).value;
    if (!response.ok) throw new WebDriverError(`${method} ${path}`, value);
    return value;
  }

  delete() { return this.send('DELETE', ''); }
}
