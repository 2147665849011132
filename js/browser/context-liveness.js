// This context's own liveness, as the hub sees it (a layer of HubBackend, hub-backend.js): its
// sentinel's port and its alive database's name go to the hub after a welcome, and pagehide says
// bye (the back/forward cache: its locks are lost, its waiting requests wait or abort; pageshow
// registers them again). What speaks for it after a hub loss is vouch (hub-loss-watch.js).
import { C } from '../hub/protocol.js';
import { HubLossWatch } from './hub-loss-watch.js';
import { SENT, HELD, RELEASING, nextTask } from './hub-link.js';
import { LOST } from './lost.js';

export class ContextLiveness extends HubLossWatch {
  /**
   * After each welcome the hub gets a port to this context's sentinel (js/browser/sentinel.js: it
   * answers pings for us). A context starts it only after its first request has been answered (its
   * callback has run), or LIVENESS.SENTINEL_START_LATEST after the welcome, or at once when nothing
   * is asked. Starting a worker takes this thread (a nested `new Worker()` 0.2-11 ms, then its
   * load) while the hub's grant waits in our queue, and in a window it slows the browser's start of
   * the hub itself (Chromium, fresh profile: the hub's script ran 49-86 ms after `new SharedWorker`
   * with the sentinel started at request(), 23-40 ms after without). Nothing waits for the
   * sentinel: until it has answered once, the hub never declares the context dead for silence
   * (js/hub/liveness-judge.js silenceProvesNothing), a crashed window goes by its alive database, and a held
   * marker speaks for us after a hub loss (vouch); docs/browser.md, Liveness.
   */
  sendSentinelSoon(delay = this.awaitsAnswer() ? this.liveness.SENTINEL_START_LATEST : null) {
    clearTimeout(this.sentinelTimer);
    this.sentinelTimer = null;
    if (delay === null) { this.sendSentinel(); return; }
    const fire = () => {
      if (this.sentinelTimer !== timer) return;
      this.sentinelTimer = null;
      // With a hello in flight, its welcome hands the sentinel to whichever hub answers it.
      if (this.helloEntries === null) this.sendSentinel();
    };
    // After the first answer: the next task (the callback's first part has run), not a timer: a
    // background tab's timers are throttled (Firefox: 1 s and more), its sentinel would start that
    // late, and a tab closed meanwhile whose bye is lost would keep its locks (nothing to time out).
    const timer = delay === 0 ? {} : setTimeout(fire, delay);
    this.sentinelTimer = timer;
    if (delay === 0) nextTask(fire);
  }

  /** A request of ours waits for its first answer from the hub. */
  awaitsAnswer() {
    for (const record of this.records.values()) if (record.state === SENT) return true;
    return false;
  }

  sendSentinel() {
    if (this.sentinel === null || this.port === null) return;
    const port = this.sentinel.portForHub();
    if (port !== null) this.flow.postNow({ t: C.sentinel }, [port]);
  }

  /** The hub gets the name of our alive database, once welcomed and while it is open (again after a hello). */
  sendAlive() {
    const name = this.aliveDatabase?.name ?? null;
    if (name === null || this.port === null || this.hubId === null || this.helloEntries !== null || this.asleep || this.failure !== null) return;
    this.flow.postNow({ t: C.alive, name });
    this.aliveSent = name;
  }

  // ---- this context leaving ----

  /** pagehide: tell the hub at once (it releases everything). persisted: the page may come back. */
  pageHidden(persisted) {
    if (this.port === null || this.asleep) return;
    this.flow.postNow({ t: C.bye });
    // The hub releases everything with our bye, so no successor need wait for us: the held marker
    // closes now, not when the browser tears the page down (Firefox, a tab closed just after its
    // release: a new hub found the marker still held and opened its reclaim window).
    this.heldMarker?.set(null);
    if (!persisted) return;
    // A delete waiting on its database would evict the page from the back/forward cache.
    this.aliveDatabase?.close();
    this.asleep = true;
    // The hub released everything with our bye: our sentinel (in WebKit a shared worker, which the
    // cache does not freeze) must not hold a new hub's grants for a page that will not re-register.
    this.vouch();
    this.flow.close();
    this.loseHeld(LOST.pageHidden);
    // WebKit's own locks abort the window's waiting requests too; elsewhere they wait on (pageShown).
    if (this.bfcacheRule === 'abort-waiting') this.abortWaiting(LOST.pageHiddenWaiting);
  }

  /** Rejects every request not granted yet with an AbortError (the hub forgot them with our bye). */
  abortWaiting(message) {
    for (const [token, record] of this.records) {
      if (record.state === HELD || record.state === RELEASING) continue;
      this.records.delete(token);
      record.listener.failed(token, new DOMException(message, 'AbortError'));
    }
  }

  /** pageshow from the back/forward cache: register again what still waits. */
  pageShown() {
    if (!this.asleep) return;
    this.asleep = false;
    this.lastHeard = this.now();
    this.hello(null);
    this.aliveDatabase?.open();
    if (this.records.size > 0) this.watch();
  }

  /** This context's held locks are lost (declared dead, hidden in the back/forward cache, not reclaimed): `message` says why. */
  loseHeld(message) {
    for (const [token, record] of this.records) {
      if (record.state !== HELD && record.state !== RELEASING) continue;
      this.records.delete(token);
      record.listener.stolen(token, message);
      record.answered?.();
    }
  }
}
