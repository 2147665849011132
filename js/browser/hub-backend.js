// The backend (docs/api.md, "The backend contract") of one context served by the hub. It speaks
// the protocol (js/hub/protocol.js) over one MessagePort at a time, obtained from `connect()`
// (a SharedWorker's port, or one the creating context handed to this worker). It also keeps the
// context's side of liveness: it answers pings, says `bye` on pagehide, and notices a lost hub (no
// message for a while and no answer to a probe), then connects again and re-registers what it holds
// and waits for, in order (the new hub's reclaim window keeps new grants back meanwhile).
// Hub identity (docs/browser.md, "Hub loss and reclaim"): every connection's first message names
// the hub that serves it. A context registered with another hub than the one its port now reaches
// (WebKit hands surviving ports to a relaunched hub) says hello again at once; a hub that does not
// know a port answers its probes with `unregistered`. A suspected loss (silence, the sentinel's
// alarm, a new hub's announcement) is decided by opening a fresh connection and reading which hub
// greets it: a slow hub greets late with the same id, never a false loss.
// HubBackend is built in layers, each a file, each extending the one below: hub-link.js (port,
// flow, hello) < hub-loss-watch.js (probe, identity) < context-liveness.js (sentinel, alive
// database, pagehide) < hub-messages.js (what the hub says) < this file (the contract, workers, frames).
import { LIMITS, C } from '../hub/protocol.js';
/** @import { RequestMessage } from '../hub/protocol.js' */
import { terminatedWorkerRunsOn } from '../hub/terminated-worker.js';
import { HubMessages } from './hub-messages.js';
import { HELD, UNSENT, RELEASING, RELEASE_CHECK_SHARE, askNextHub, nextTask, refusePort } from './hub-link.js';

export { LOST } from './lost.js';

export class HubBackend extends HubMessages {
  // ---- the backend contract ----

  /** `as`: the clientId of the same-origin frame this request is made for (frame-backend.js), if not ours. */
  request(name, mode, wait, listener, within, as) {
    const token = ++this.nextToken;
    if (this.failure !== null || name.length > LIMITS.nameLength) {
      const error = this.failure ?? new DOMException(
        `Lock names longer than ${LIMITS.nameLength} characters are not supported by this implementation.`, 'NotSupportedError');
      queueMicrotask(() => listener.failed(token, error));
      return token;
    }
    // Its answers wait for our held marker, if one is being opened: a callback never starts
    // before the next hub could find the marker (held-marker.js).
    const answers = this.heldMarker?.gate(listener) ?? listener;
    this.records.set(token, { name, mode, wait, listener: answers, state: UNSENT, seq: null, made: ++this.made, as });
    /** @type {RequestMessage} */
    const message = { t: C.request, token, name, mode, wait };
    if (as !== undefined) message.as = as;
    // Made inside the callback of a lock this context holds: the hub looks for a deadlock.
    if (within !== undefined && this.records.get(within.under)?.state === HELD) {
      message.under = within.under;
      if ((this.deadlock ?? globalThis.WEBLOCKS_DEADLOCK) === 'reject') message.reject = true;
    }
    this.send(message);
    this.watch();
    return token;
  }

  release(token) {
    const record = this.records.get(token);
    if (record === undefined) return undefined;
    if (record.state !== HELD) { this.records.delete(token); return undefined; } // cannot happen through the LockManager
    if (!this.flow.open) {
      // Reconnecting after a hub loss: the hello claims the lock, and its welcome says whether it
      // was still ours until now (then releases it) or not (the callback's result is not accepted).
      record.state = RELEASING;
      this.stats.releaseChecks++;
      return askNextHub(record).then(() => { if (this.records.get(token) === record) this.records.delete(token); });
    }
    // This context sent nothing for long enough that the hub may have declared it dead (a long
    // task with no sentinel to answer, a frozen page) and given the lock to another, its word of
    // it still on the way: the port is in order, so one round trip settles it, and the request's
    // result is accepted only after it (a death heard first rejects it: loseHeld).
    // WebKit hands the hub each port's messages on a road of its own, and not always in the order
    // they were sent from different contexts: a release must have reached the hub before its
    // request settles, or another context told of that (spec 4.1 step 2.4: "Release the lock",
    // then resolve) could still find the lock held (an ifAvailable request answered null,
    // cross-tab.spec.js). So there the round trip below is made for every release.
    const unsure = this.confirmReleases || this.now() - this.lastPosted >= this.liveness.DEAD_AFTER * RELEASE_CHECK_SHARE;
    // The hub handles a release on arrival, never in its inbox: it does not wait behind requests
    // that flow control keeps here (a waiter elsewhere would wait for them).
    this.toHub(record.as === undefined ? { t: C.release, token } : { t: C.release, token, as: record.as });
    if (!unsure) { this.records.delete(token); return undefined; }
    record.state = RELEASING;
    this.stats.releaseChecks++;
    // A hello sent meanwhile (the hub was lost) asks the next hub whether the lock was still ours:
    // its welcome settles `record.asked` (welcome, loseHeld).
    return this.releaseBarrier().then(() => record.asked).then(() => { if (this.records.get(token) === record) this.records.delete(token); });
  }

  /**
   * One sync behind all the releases of this turn: a burst of releases (a WebKit tab letting
   * 10,000 locks go at once) sends one, not one each, which would fill the hub's inbox for this
   * context (burst.spec.js: the hub cut the connection).
   */
  releaseBarrier() {
    return this.confirming ??= new Promise((resolve) => queueMicrotask(() => {
      this.confirming = null;
      resolve(this.flow.barrier());
    }));
  }

  abort(token) {
    const record = this.records.get(token);
    if (record === undefined || record.state === HELD) return Promise.resolve(false);
    if (this.failure !== null) return Promise.resolve(false);
    if (record.state === UNSENT) {
      // The hub never saw it: it is simply not sent (its queued message is skipped).
      this.records.delete(token);
      this.idle();
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.aborts.set(token, resolve);
      this.abortsMade.set(token, ++this.made);
      this.send(record.as === undefined ? { t: C.abort, token } : { t: C.abort, token, as: record.as });
      this.watch();
    });
  }

  query() {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const call = ++this.nextCall;
      this.queries.add(call, resolve, reject, ++this.made);
      this.send({ t: C.query, call });
      this.watch();
    });
  }

  /** observeLocks's source: the hub's lock space, observed over the protocol (C.observe, H.changes). */
  observeSource() {
    return {
      observe: (sink) => {
        const call = ++this.nextCall;
        this.observers.set(call, { sink, started: false });
        this.send({ t: C.observe, call });
        this.watch(); // (a lost hub is noticed while observing, as while waiting)
        this.observersChanged();
        return () => {
          if (!this.observers.delete(call)) return;
          if (this.port !== null && this.failure === null) this.send({ t: C.unobserve, call });
          this.observersChanged();
          this.idle();
        };
      },
    };
  }

  /**
   * A dedicated worker this context created needs its own connection: hand the hub one end. Only
   * once a hub welcomed us: a failed context passes its failure on to the worker, so that the
   * worker's requests reject as promptly as ours instead of waiting on a hub that never answers.
   */
  adopt(port, worker, as) {
    if (this.failure !== null) return refusePort(port, this.failure);
    if (this.hubId === null) {
      this.unwelcomedAdopts.push([port, worker, as]);
      if (this.port === null && !this.asleep) this.open(null);
      return undefined;
    }
    // A hello in flight, or a hub silent for a while (it may be gone, and a port handed to it would
    // go with it: the worker would learn only when its identity check timed out, 5 s on): held
    // until the hub speaks (receive) or a new one welcomes us.
    if (this.helloEntries !== null || this.now() - this.lastHeard >= this.liveness.HUB_SILENT_AFTER) {
      this.unwelcomedAdopts.push([port, worker, as]);
      this.checkSoon();
      return undefined;
    }
    this.send(as === undefined ? { t: C.adopt, worker } : { t: C.adopt, worker, as }, [port]);
    this.checkSoon();
    return undefined;
  }

  /**
   * This context terminated its worker number `worker`: once the worker has stopped running, it
   * no longer vouches for it at the hub. A busy worker runs on until Chromium's forcible
   * termination, a task on this thread 2 s after terminate(): the hub hears of the end from a
   * timer due after it (terminatedWorkerRunsOn), then one more task of this thread (a busy thread
   * runs its due tasks in the order they fell due), so never while the worker still runs.
   */
  workerEnded(worker, as) {
    this.unwelcomedAdopts = this.unwelcomedAdopts.filter(([port, w, a]) => {
      if (w === worker && a === as) try { port.close(); } catch { /* gone */ }
      return w !== worker || a !== as;
    });
    setTimeout(() => nextTask(() => {
      if (this.hubId !== null && this.failure === null) this.send(as === undefined ? { t: C.ended, worker } : { t: C.ended, worker, as });
    }), terminatedWorkerRunsOn(this.liveness));
  }

  // ---- same-origin frames that speak through this context (frame-backend.js) ----

  /**
   * Frame `as` (a clientId) makes its calls through this context from now on. Its `document`
   * tells whether it has left (checked while it has anything here: a frame removed without a
   * pagehide): a Document that is no longer its frame's has no defaultView.
   */
  joinFrame(as, document) {
    this.frames.set(as, typeof WeakRef === 'function' ? new WeakRef(document) : { deref: () => document });
  }

  /**
   * Frame `as` left (pagehide of a removed or navigated frame, or found gone): as for a context
   * that says bye, its locks are released and its requests dropped at once (C.left), and nothing
   * more is said to it.
   */
  frameLeft(as) {
    if (!this.frames.delete(as)) return;
    let any = false;
    for (const [token, record] of this.records) {
      if (record.as !== as) continue;
      any = true;
      this.records.delete(token);
      this.aborts.get(token)?.(false);
      this.aborts.delete(token);
      this.abortsMade.delete(token);
    }
    this.unwelcomedAdopts = this.unwelcomedAdopts.filter(([port, , a]) => {
      if (a === as) try { port.close(); } catch { /* gone */ }
      return a !== as;
    });
    // Only a hub that may have heard of the frame is told (a hello to come names none of its records).
    if (this.hubId !== null && this.failure === null && !this.asleep && (any || this.port !== null)) this.send({ t: C.left, as });
    this.idle();
  }

  /** Frames that left without a pagehide (their document is gone): told as if they had. */
  checkFrames() {
    for (const [as, document] of this.frames) {
      let left = true;
      try { left = (document.deref()?.defaultView ?? null) === null; } catch { /* a dead realm: gone */ }
      if (left) this.frameLeft(as);
    }
  }
}
