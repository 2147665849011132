// This context's sentinel: a small dedicated worker that answers the hub's pings for it
// (js/hub/sentinels.js). It shares the context's fate (same process: a crash, a close, or
// terminate() of a worker context ends it too; nested workers die with their parent) but not its
// event loop, so a context busy in a long synchronous task keeps its locks, as with native Web
// Locks. It also hears when the hub stops pinging (its timers run at full rate where a background
// tab's are throttled) and alerts the context, which then checks the hub's identity.
//
// Its script is inline (a Blob URL): nothing more to deploy. Where a Content-Security-Policy
// forbids blob: workers (worker-src), the context answers for itself as before (a long task of
// over LIVENESS.DEAD_AFTER then loses its locks) and the console says so once.

/** The sentinel's whole program; it runs in the worker from its source text (no closure). */
function sentinelMain(silentAfter) {
  let hubPort = null;
  let alarm = 0;
  let answering = false;
  const arm = () => {
    clearTimeout(alarm);
    alarm = setTimeout(() => self.postMessage('hub-silent'), silentAfter);
  };
  self.onmessage = (event) => {
    const port = event.ports[0];
    if (port === undefined) return;
    if (hubPort !== null) hubPort.close();
    hubPort = port;
    port.onmessage = (e) => {
      if (e.data !== null && typeof e.data === 'object' && e.data.t === 'ping') {
        port.postMessage({ t: 'pong' });
        arm();
        // Its first answer proves to its context that it runs and the hub hears it (Sentinel.answering).
        if (!answering) { answering = true; self.postMessage('answering'); }
      }
    };
    arm();
  };
}

let warned = false;

/** The context's own Worker constructor, under the polyfill's patch (worker-ports.js) if installed. */
export function nativeWorker(scope) {
  let Worker = scope.Worker;
  if (typeof Worker !== 'function') return null;
  while (Worker[Symbol.for('weblocks-wasm.worker-patched')] === true) Worker = Object.getPrototypeOf(Worker);
  return typeof Worker === 'function' ? Worker : null;
}

export class Sentinel {
  /**
   * @param Worker       the context's native Worker constructor
   * @param silentAfter  ms without a ping from the hub before `onHubSilent` is called (once per silence)
   */
  constructor(Worker, silentAfter, onHubSilent) {
    this.Worker = Worker;
    this.silentAfter = silentAfter;
    this.onHubSilent = onHubSilent;
    this.worker = null;
    this.failed = false;
    this.answered = false; // the sentinel has answered the hub at least once
    this.answering = new Promise((resolve) => { this.onAnswering = resolve; });
  }

  /** Null once the sentinel answers the hub (or none can run here); until then a promise of that (HubBackend.holdForSentinel). */
  untilAnswering() {
    return this.answered || this.failed ? null : this.answering;
  }

  /** Starts the sentinel's worker ahead of its first port, so that it starts while the hub says hello. */
  prepare() {
    if (this.failed || this.worker !== null) return;
    try { this.start(); } catch (error) { this.fail(error); }
  }

  /** A fresh port for the hub, its other end held by the sentinel; null where no sentinel can run. */
  portForHub() {
    if (this.failed) return null;
    try {
      if (this.worker === null) this.start();
      const channel = new MessageChannel();
      this.worker.postMessage(null, [channel.port1]);
      return channel.port2;
    } catch (error) {
      this.fail(error);
      return null;
    }
  }

  start() {
    const source = `(${sentinelMain.toString()})(${Number(this.silentAfter)});`;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    this.worker = new this.Worker(url, { name: 'weblocks-sentinel' });
    this.worker.onmessage = (event) => {
      if (event.data === 'hub-silent') this.onHubSilent();
      else if (event.data === 'answering') { this.answered = true; this.onAnswering(); }
    };
    this.worker.onerror = (event) => { event.preventDefault?.(); this.fail(new Error(event.message || 'the sentinel worker did not start')); };
  }

  fail(error) {
    this.failed = true;
    this.onAnswering();
    if (!warned) {
      warned = true;
      console.warn(`[weblocks] no sentinel worker in this context (${error?.message ?? error}; a Content-Security-Policy worker-src that allows blob: fixes it): the context answers the lock hub itself, so a synchronous task longer than about 1.5 s releases its locks.`);
    }
  }
}
