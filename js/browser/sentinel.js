// This context's sentinel: a small dedicated worker that answers the hub's pings for it
// (js/hub/sentinels.js). It shares the context's fate (same process: a crash, a close, or
// terminate() of a worker context ends it too; nested workers die with their parent) but not its
// event loop, so a context busy in a long synchronous task keeps its locks, as with native Web
// Locks. It also hears when the hub stops pinging (its timers run at full rate where a background
// tab's are throttled) and alerts the context, which then checks the hub's identity.
//
// WebKit windows: a dedicated worker cannot answer for a busy window there (WebKit sends a page's
// workers' messages to other processes from the page's main thread), so a window's sentinel is a
// SharedWorker of its own instead (a unique name). WebKit runs it with the origin's other shared
// workers, outside the window's process, so a long task of the window does not hold it back, and
// ends it when its only window goes (measured in WebKitGTK 2.50: it kept beating every 100 ms
// through a 4 s task of its window, and stopped 28 ms after the window's process was killed).
//
// Its script is build/dist/weblocks-sentinel.js (js/browser/sentinel-worker.js), served next to the
// hub: a same-origin script, so a Content-Security-Policy of `worker-src 'self'` (or `default-src
// 'self'`) allows it; nothing inline, no blob: URL. Where it cannot start (the file is missing, or
// a policy forbids it), the context has no sentinel: the hub then never declares it dead for
// silence (a busy context keeps its locks; a crashed one keeps them until its tab closes), and the
// console says so once, naming the fix.

import { randomUuid } from '../api/random-id.js';
import { startScript } from './script-urls.js';
import { C, H, LIVENESS, ANNOUNCE } from '../hub/protocol.js';

/**
 * Firefox: a dedicated worker's own `new Worker()` (its sentinel) sometimes never returns, and the
 * worker's thread is stuck for good (measured with Firefox ESR 153: 6 of 24 test runs creating 24
 * workers each, 2 in 55 runs of a single iframe worker; none in 192 workers without a sentinel;
 * blob: and data: URLs alike). A Firefox dedicated worker therefore has no sentinel: the context
 * that created it vouches for it at the hub instead (js/hub/liveness-judge.js vouchedFor). Firefox windows
 * keep theirs. A user-agent check: no feature reveals the bug.
 */
export function isFirefox(scope) {
  return /\bFirefox\//.test(String(scope.navigator?.userAgent ?? ''));
}

/**
 * WebKit (Safari's engine, every browser on iOS): not Chromium's or Gecko's user agent. No word
 * boundary before "Chrome": headless Chromium says "HeadlessChrome/" (and iOS browsers, WebKit,
 * say "CriOS/", "EdgiOS/").
 */
export function isWebKit(scope) {
  const agent = String(scope.navigator?.userAgent ?? '');
  return /AppleWebKit\//.test(agent) && !/(?:Chrome|Chromium|Edg)\//.test(agent);
}

/**
 * The worker that can be this context's sentinel: { Worker, shared }, or null where none can
 * (a Firefox dedicated worker; no Worker). `kind`: js/browser/context.js contextKind.
 */
export function sentinelWorkerFor(scope, kind) {
  if (kind === 'window' && typeof scope.SharedWorker === 'function' && isWebKit(scope)) return { Worker: scope.SharedWorker, shared: true };
  if (kind === 'dedicated-worker' && isFirefox(scope)) return null;
  const Worker = nativeWorker(scope);
  return Worker === null ? null : { Worker, shared: false };
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
   * @param Worker       the context's native Worker constructor, or its SharedWorker constructor
   *                     (shared: true, WebKit windows)
   * @param url          the sentinel script (script-urls.js sentinelUrlOf: next to the hub)
   * @param onHubSilent  called when the sentinel has heard no ping from the hub for
   *                     LIVENESS.SENTINEL_ALARM_AFTER (once per silence)
   * onFail: called when it turns out that no sentinel can run here
   * onAnswer: called when the sentinel has answered the hub for the first time
   */
  constructor(Worker, url, onHubSilent, { shared = false, scope = globalThis, channel = null, onFail = () => {}, onAnswer = () => {} } = {}) {
    this.Worker = Worker;
    this.onFail = onFail;
    this.onAnswer = onAnswer;
    this.channel = channel; // the hub's announcement channel (its SharedWorker name)
    this.vouched = null;    // what the sentinel was last told to vouch for (vouch())
    this.vouchKey = null;
    this.url = url;
    this.scope = scope;
    this.shared = shared;
    this.onHubSilent = onHubSilent;
    this.worker = null;
    this.port = null;     // where the context talks to it: the Worker, or the SharedWorker's port
    this.handedOut = false; // a port for the hub went to this worker
    this.failed = false;
    this.answered = false; // the sentinel has answered the hub at least once (until then the context keeps a held marker)
  }

  /** A fresh port for the hub, its other end held by the sentinel; null where no sentinel can run. */
  portForHub() {
    if (this.failed) return null;
    try {
      // A shared one runs with the origin's other shared workers, the hub among them: a hub loss
      // may take it along, or WebKit may relaunch it on a port that carries nothing to it. Each
      // new hub gets a fresh one.
      if (this.shared && this.handedOut) this.retire();
      if (this.worker === null) this.start();
      const channel = new MessageChannel();
      this.port.postMessage({
        ping: H.ping, pong: C.pong, silentAfter: LIVENESS.SENTINEL_ALARM_AFTER,
        channel: this.channel, started: ANNOUNCE.started, hadHub: ANNOUNCE.hadHub, every: LIVENESS.SURVIVOR_SAY_EVERY, vouch: this.vouched,
      }, [channel.port1]);
      this.handedOut = true;
      return channel.port2;
    } catch (error) {
      this.fail(error);
      return null;
    }
  }

  /**
   * Tells the sentinel which hub this context holds or waits under (null: nothing outstanding), so
   * that it can say so for the context, busy or not, when that hub is lost (sentinel-worker.js).
   */
  vouch(hubId, clientId) {
    const key = hubId === null ? null : `${hubId} ${clientId}`;
    if (key === this.vouchKey) return;
    this.vouchKey = key;
    this.vouched = hubId === null ? null : { hubId, clientId };
    if (this.port !== null && !this.failed) this.port.postMessage({ vouch: this.vouched });
  }

  start() {
    if (this.url === null) throw new Error('no hub URL to find weblocks-sentinel.js next to');
    // A shared one's name is its own: another window's must never answer for this one.
    const name = this.shared ? `weblocks-sentinel-${randomUuid()}` : 'weblocks-sentinel';
    const worker = startScript(this.scope, this.Worker, this.url, { name });
    this.worker = worker;
    this.port = this.shared ? worker.port : worker;
    this.handedOut = false;
    this.port.onmessage = (event) => {
      if (this.worker !== worker) return;
      if (event.data === 'hub-silent') this.onHubSilent();
      else if (event.data === 'answering' && !this.answered) { this.answered = true; this.onAnswer(); }
    };
    worker.onerror = (event) => {
      event.preventDefault?.();
      if (this.worker === worker) this.fail(new Error(event.message || `${this.url} did not start`));
    };
  }

  /** Lets go of a shared sentinel: with no window holding it, the browser ends it. */
  retire() {
    try { this.port.close(); } catch { /* gone */ }
    this.worker = null;
    this.port = null;
  }

  fail(error) {
    this.failed = true;
    this.onFail();
    if (!warned) {
      warned = true;
      console.warn(`[weblocks] this context has no sentinel worker (${error?.message ?? error}): the lock hub cannot tell it busy from crashed, so it keeps its locks while it is silent, and a crash leaves them held until its tab or worker closes. Fix: serve weblocks-sentinel.js next to the hub script (${this.url}), allowed by any Content-Security-Policy (worker-src 'self'), with Cross-Origin-Embedder-Policy on a cross-origin-isolated page.`);
    }
  }
}
