// What the Firefox and WebKit tabs share: Playwright's waitForFunction (poll a predicate in the
// page) and the few Page members the specs use, over an engine's evaluate().
export class RemoteTab {
  constructor() {
    this.listeners = new Map();
    this.processes = [];
  }

  on(event, listener) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event).add(listener);
    return this;
  }

  once(event, listener) {
    const wrapped = (...args) => { this.listeners.get(event)?.delete(wrapped); listener(...args); };
    return this.on(event, wrapped);
  }

  emit(event, ...args) {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }

  waitForTimeout(ms) { return new Promise((r) => setTimeout(r, ms)); }

  /** Like Playwright's page.waitForFunction(fn, arg, { timeout, polling }): resolves with the truthy value. */
  async waitForFunction(fn, arg, { timeout = 30_000, polling = 20 } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.evaluate(fn, arg);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`waitForFunction timed out after ${timeout} ms: ${String(fn).slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, typeof polling === 'number' ? polling : 20));
    }
  }
}
