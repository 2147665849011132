// The hub-loss watch of a context (a layer of HubBackend, hub-backend.js): while anything of this
// context waits on the hub (waitsOnHub: requests, held locks, aborts, queries, observers), a
// check every CLIENT_CHECK_EVERY probes a silent hub and asks which hub serves the origin (hub
// identity); a lost or replaced hub makes the context reconnect and re-register (hub-link.js hello).
// Hub identity (docs/browser.md, "Hub loss and reclaim"): every connection's first message names
// the hub that serves it. A context registered with another hub than the one its port now reaches
// (WebKit hands surviving ports to a relaunched hub) says hello again at once; a hub that does not
// know a port answers its probes with `unregistered`. A suspected loss (silence, the sentinel's
// alarm, a new hub's announcement) is decided by opening a fresh connection and reading which hub
// greets it: a slow hub greets late with the same id, never a false loss.
import { C, H, ANNOUNCE, LIMITS, isHubMessage } from '../hub/protocol.js';
/** @import { ContextMessage } from '../hub/protocol.js' */
import { HubLink } from './hub-link.js';

export class HubLossWatch extends HubLink {
  /**
   * @param connect   () => Promise<MessagePort>: a fresh port to the hub (hub-link.js)
   * @param {object} [options]   HubBackend's; here: announcements (a BroadcastChannel)
   */
  constructor(connect, options = {}) {
    super(connect, options);
    // Hub announcements (BroadcastChannel): a fresh hub while we hold or wait under another one.
    this.channel = options.announcements ?? null;
    if (this.channel !== null) this.channel.onmessage = (event) => this.heardAnnouncement(event.data);
  }

  // ---- liveness: hub loss ----

  /** While anything is outstanding, check that the hub is alive. */
  watch() {
    if (this.checkTimer !== null) return;
    this.checkTimer = setInterval(() => this.check(), this.liveness.CLIENT_CHECK_EVERY);
    this.vouch();
  }

  /**
   * Whether anything of this context depends on the hub's answers: a request or a held lock, an
   * abort, a query, an observer (whose changes stop with a lost hub). The one definition that
   * idle(), check() and hubSilent() share.
   */
  waitsOnHub() {
    return this.records.size > 0 || this.aborts.size > 0 || this.queries.size > 0 || this.observers.size > 0;
  }

  idle() {
    if (this.checkTimer !== null && !this.waitsOnHub() && this.probe === null && this.identity === null) {
      clearInterval(this.checkTimer);
      this.checkTimer = null;
      this.vouch();
    }
  }

  /** Our sentinel speaks for us after a loss of the hub we hold or wait under, while we cannot (a long task). */
  vouch() {
    const live = this.checkTimer !== null && this.failure === null && !this.asleep;
    this.sentinel?.vouch(live ? this.hubId : null, this.clientId);
    // And a marker, for as long as we hold or wait under that hub: what the next hub waits for if
    // we are busy then. Not only until our sentinel has answered: a sentinel speaks for us only by
    // answering the next hub's announcement, and that hub waited for answers a fixed 100 ms (its
    // start-up hold); a loaded machine's late answer let it grant a busy survivor's lock (CI run O,
    // Chromium). The marker is found by listing storage, however late. (It does not cover a context
    // busy from its first callback's first line: an open made just before a long task reaches
    // Chromium's storage only after it.) Before our first welcome, under the hub whose greeting our
    // port heard (the hub our hello goes to): its open, most of a first grant's wait for it, goes on
    // beside the hello's round trip (a dedicated worker's marker was set 0.2-6 ms before its
    // welcome, Chromium).
    this.heldMarker?.set(live ? this.hubId ?? this.greetedBy : null);
  }

  /** A message from the hub could not be deserialized (which one is not known): queries reject. */
  undeliverable() {
    this.log('warn', 'a message from the lock hub could not be deserialized');
    this.queries.failAll(new DOMException('The answer of the lock hub to query() could not be delivered to this context.', 'DataCloneError'));
    this.idle();
  }

  check() {
    // A query whose answer stopped coming rejects (the answer was lost, or the hub is stuck).
    if (this.queries.size > 0 && this.queries.expire(this.liveness.QUERY_TIMEOUT ?? LIMITS.queryTimeout)) this.idle();
    // An identity check that outlived its deadline while the probe was answered: a question only.
    if (this.identity !== null && this.probe === null && this.now() >= this.identity.deadline) this.cancelIdentity();
    // Nothing outstanding any more: stop checking (here rather than on every release, so that a
    // context that requests again at once keeps its timer). A probe or identity check in flight
    // (a worker of ours asked for a port: checkSoon) is seen through first.
    if (this.frames.size > 0) this.checkFrames();
    if (!this.waitsOnHub() && this.probe === null && this.identity === null) return this.idle();
    if (this.port === null || this.asleep || this.failure !== null) return;
    const now = this.now();
    // This context was busy or throttled since the last check: messages may be waiting behind
    // us. Give the hub its full time again before judging.
    const late = now - this.lastCheck > this.liveness.CLIENT_CHECK_EVERY * 3;
    this.lastCheck = now;
    if (this.earlyHub !== null) {
      // Answered: nothing to ask. Busy meanwhile: the answer may be waiting behind us.
      if (this.helloEntries === null) this.earlyHub = null;
      else if (late) this.earlyHub.askBy = now + this.liveness.EARLY_HUB_ANSWER_WAIT;
      else if (now >= this.earlyHub.askBy) {
        this.checkIdentity(this.earlyHub.hubId);
        this.earlyHub = null;
      }
    }
    if (late && this.probe !== null && !this.probe.extended) {
      // Once per probe: a throttled background tab checks only about once a second.
      this.probe.deadline = now + this.liveness.PROBE_TIMEOUT;
      this.probe.extended = true;
    }
    if (this.probe !== null) {
      // With an identity check in flight, its answer decides (a slow hub answers late, same id).
      if (now >= this.probe.deadline && (this.identity === null || now >= this.identity.deadline)) this.hubLost();
      return;
    }
    // Silence alone is not proof (this context may have been busy): a probe and an identity check settle it.
    if (now - this.lastHeard >= this.liveness.HUB_SILENT_AFTER) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: now + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
      this.checkIdentity();
    }
  }

  /**
   * A hub started while we hold or wait under another: ours may have just died. Tell the new one
   * (it then holds new grants back for our reclaim) and check ours at once.
   */
  heardAnnouncement(m) {
    if (m === null || typeof m !== 'object' || m.t !== ANNOUNCE.started || typeof m.hubId !== 'string') return;
    if (this.hubId === null || m.hubId === this.hubId || this.records.size === 0 || this.port === null) return;
    this.channel.postMessage({ t: ANNOUNCE.hadHub, hubId: this.hubId });
    this.checkIdentity();
    if (this.probe === null) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
    }
    this.watch();
  }

  /** Makes sure the hub answers soon (a worker of ours asked for a port: our hub may be gone). */
  checkSoon() {
    this.watch();
    if (this.port !== null && this.probe === null && this.now() - this.lastHeard >= this.liveness.PING_AFTER) {
      const call = ++this.nextCall;
      this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
      this.toHub({ t: C.probe, call });
    }
  }

  /** Serves this context from another kind of port from now on (a hub that never answered). */
  switchTo(connect) {
    this.connectPort = connect;
    this.connectNow = null; // a port made before (a window's early one) is the unreachable hub's
    this.identify = null; // the origin-wide hub is out of reach: nothing to compare with
    // Not connected yet (a window's early port failed before its first request): the next open() uses it.
    if (this.port !== null || this.connecting !== null) this.reconnect(this.hubId);
  }

  /**
   * The browser refused the SharedWorker behind our port (context.js startHub: the running hub was
   * started with the other lifetime setting): connect again, as the connection it replaces would have.
   */
  portRefused() {
    if (this.failure !== null) return;
    this.reconnect(this.helloEntries !== null ? this.lastLostHub : this.hubId);
  }

  hubLost() {
    this.stats.hubLosses++;
    // A hub that never answered (still starting on a loaded machine, or its script failing, which
    // its SharedWorker's error event names) did not stop: it is asked again over a new connection.
    this.log('warn', this.hubId === null
      ? `the lock hub has not answered yet; connecting again for ${this.records.size} locks and requests`
      : `the lock hub stopped answering; reconnecting and re-registering ${this.records.size} locks and requests`);
    this.reconnect(this.hubId ?? 'unknown');
  }

  reconnect(lost) {
    this.cancelIdentity();
    const old = this.port;
    this.port = null;
    this.flow.close();
    this.probe = null;
    if (old !== null) {
      old.onmessage = null;
      old.onmessageerror = null;
      try { old.close(); } catch { /* gone */ }
    }
    this.stats.reconnects++;
    this.open(lost);
  }

  // ---- liveness: hub identity ----

  /** The first message of a connection: which hub serves this port. */
  greeted(m) {
    if (typeof m.hubId === 'string' && this.hubId === null) {
      this.greetedBy = m.hubId;
      return this.vouch(); // (our sentinel's word is unchanged: no hub has welcomed us)
    }
    if (typeof m.hubId !== 'string' || this.hubId === null || m.hubId === this.hubId) return;
    // Our hello is in flight: whether it reached this hub, a probe sent after it tells.
    if (this.helloEntries !== null) return this.settle();
    // Registered with another hub, and this one serves our port now: ours died and the browser
    // handed our port to its successor (WebKit). Re-register at once, over a fresh connection:
    // a relaunched port may carry the hub's messages to us but none of ours to it (measured in
    // WebKitGTK: the greeting arrives, the hello never does), and a hello that waits for a probe
    // to time out comes after the reclaim window, its held locks lost.
    this.stats.hubLosses++;
    this.log('warn', `a new lock hub serves this context's connection; re-registering ${this.records.size} locks and requests`);
    this.reconnect(this.hubId);
    return undefined;
  }

  /** The hub that serves this port has no registration for it. */
  unregisteredHere(m) {
    if (m.call === 0) return this.settle();
    // A probe sent before our latest hello: that hello's answer is still on its way.
    if (m.call <= this.helloAtCall) return undefined;
    // Our latest hello went to a hub that is gone: say it again to this one.
    const inFlight = this.helloEntries !== null;
    const lost = inFlight ? this.lastLostHub : this.hubId;
    if (!inFlight && this.hubId !== null) this.stats.hubLosses++;
    this.cancelIdentity();
    if (this.hubId === null && lost === null) this.freshHello();
    else this.hello(lost);
    return undefined;
  }

  /** Sends a probe now (answered `probed` by a hub that knows this port, `unregistered` by one that does not). */
  settle() {
    if (this.port === null || this.asleep || this.probe !== null) return;
    const call = ++this.nextCall;
    this.probe = { call, deadline: this.now() + this.liveness.PROBE_TIMEOUT };
    this.toHub({ t: C.probe, call });
    this.watch();
  }

  /** The sentinel heard no ping from the hub for a while (its timers are not throttled as a background tab's). */
  hubSilent() {
    if (this.port === null || this.asleep || this.failure !== null) return;
    if (!this.waitsOnHub()) return;
    this.settle();
    this.checkIdentity();
  }

  /**
   * Opens a fresh connection to the origin's hub; its greeting says whether ours still serves.
   * `early`: the id of the hub that greeted the port our first hello went on (a window's early
   * port), while that hello is unanswered.
   */
  checkIdentity(early = null) {
    if (this.identify === null || this.identity !== null || (early ?? this.hubId) === null || (early === null && this.helloEntries !== null)) return;
    if (this.port === null || this.asleep || this.failure !== null) return;
    const check = { port: null, deadline: this.now() + this.liveness.IDENTITY_TIMEOUT, early };
    this.identity = check;
    this.watch();
    Promise.resolve().then(() => this.identify()).then((port) => {
      check.port = port;
      if (this.identity !== check) return this.closeCheck(check);
      port.onmessage = (event) => {
        const m = event.data;
        if (isHubMessage(m) && m.t === H.hub && typeof m.hubId === 'string') this.identified(check, m.hubId);
      };
      port.start?.();
      return undefined;
    }, () => {
      // No connection could be opened: the probe decides.
      if (this.identity === check) this.identity = null;
    });
  }

  identified(check, hubId) {
    if (this.identity !== check) return this.closeCheck(check);
    this.identity = null;
    check.port.onmessage = null;
    // A check of the hub that greeted our early port matters while our first hello is unanswered;
    // any other, while no hello is in flight.
    const moot = check.early === null ? this.helloEntries !== null : this.hubId !== null || this.helloEntries === null;
    if (hubId === (check.early ?? this.hubId) || moot || this.port === null || this.asleep || this.failure !== null) {
      // Our hub still serves the origin (busy, not lost): this connection was only a question.
      if (hubId === this.hubId) { this.lastHeard = this.now(); this.probe = null; }
      return this.closeCheck(check);
    }
    // Another hub serves the origin: ours is gone (for an early port's: before it read our first
    // hello). Re-register there, on this very connection.
    this.stats.hubLosses++;
    this.stats.reconnects++;
    this.log('warn', `the lock hub was replaced; re-registering ${this.records.size} locks and requests with the new one`);
    this.attach(check.port, this.hubId);
    return undefined;
  }

  cancelIdentity() {
    const check = this.identity;
    this.identity = null;
    if (check !== null) this.closeCheck(check);
  }

  closeCheck(check) {
    if (check.port === null) return;
    check.port.onmessage = null;
    try { check.port.postMessage(/** @satisfies {ContextMessage} */ ({ t: C.bye })); } catch { /* gone */ }
    try { check.port.close(); } catch { /* gone */ }
  }
}
