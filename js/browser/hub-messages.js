// What the hub says to a context (a layer of HubBackend, hub-backend.js): grants, queue order,
// welcomes (what a hello re-registered is held, stolen or queued), deaths, failures, refusals.
import { PROTOCOL_VERSION, C, H, isHubMessage } from '../hub/protocol.js';
import { warnDeadlock } from '../api/observe-shared.js';
import { ContextLiveness } from './context-liveness.js';
import { SENT, HELD, RELEASING, ANSWERS, protocolMismatch, refusePort } from './hub-link.js';
import { LOST } from './lost.js';

export class HubMessages extends ContextLiveness {
  // ---- messages from the hub ----

  receive(m) {
    this.lastHeard = this.now();
    this.probe = null;
    // Our hub spoke: the ports held for our workers while it was silent go to it.
    if (this.unwelcomedAdopts.length > 0 && this.hubId !== null && this.helloEntries === null) {
      for (const [port, worker, as] of this.unwelcomedAdopts.splice(0)) this.adopt(port, worker, as);
    }
    if (!isHubMessage(m)) {
      this.log('warn', 'ignored a message that is not from the hub');
      return;
    }
    const record = m.token !== undefined ? this.records.get(m.token) : undefined;
    if (this.sentinelTimer !== null && ANSWERS.has(m.t)) this.sendSentinelSoon(0);
    switch (m.t) {
      case H.ping: this.toHub({ t: C.pong }); return;
      case H.synced: this.flow.synced(m.call); return;
      case H.overloaded:
        // Flow control keeps this from happening; should it, the cause is said and the connection resumed.
        this.log('warn', `${String(m.message).slice(0, 400)} Resuming on a new connection.`);
        this.reconnect(this.hubId);
        return;
      case H.probed: return this.idle();
      case H.welcome: return this.welcome(m);
      case H.rejected:
        // A hub of another version refuses what it cannot read (version 8: this hello's fields; 9: a
        // reclaim entry of an ifAvailable request): what it said is the only clue then. Its own
        // version mismatch message says nothing more than ours.
        if (m.v !== PROTOCOL_VERSION) return this.fail(protocolMismatch(m.v, m.reason === 'version' ? '' : String(m.message)));
        // clientIds are public (query() shows them): another connection may have taken ours.
        // Take a new one rather than give up.
        if (m.reason === 'clientId' && this.clientIdRetries++ < 5) return this.retryHello();
        return this.fail(new DOMException(m.message, m.reason === 'quota' ? 'QuotaExceededError' : 'NotSupportedError'));
      case H.granted:
        if (record === undefined || record.state === HELD || record.state === RELEASING) return;
        record.state = HELD;
        record.listener.granted(m.token);
        return;
      case H.queued: return this.queueOrder(m.seqs);
      case H.notAvailable:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.notAvailable(m.token);
        return this.idle();
      case H.stolen:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.stolen(m.token);
        return this.idle();
      case H.failed:
        if (record === undefined) return;
        this.records.delete(m.token);
        record.listener.failed(m.token, new DOMException(m.message, m.name));
        return this.idle();
      case H.aborted: {
        const resolve = this.aborts.get(m.token);
        if (resolve === undefined) return;
        this.aborts.delete(m.token);
        this.abortsMade.delete(m.token);
        if (m.removed) this.records.delete(m.token);
        resolve(m.removed);
        return this.idle();
      }
      case H.snapshot:
        if (this.queries.piece(m)) this.idle();
        return undefined;
      case H.queryFailed:
        if (this.queries.fail(m.call, new DOMException(String(m.message), String(m.name)))) this.idle();
        return undefined;
      case H.dead: return this.declaredDead(typeof m.why === 'string' ? m.why.slice(0, 300) : null);
      case H.changes: return this.observed(m);
      case H.deadlock:
        // This context's waiting request is in a certain deadlock: say so on its console.
        if (record !== undefined && Array.isArray(m.cycle)) warnDeadlock(m.cycle);
        return undefined;
      case H.hub: return this.greeted(m);
      case H.unregistered: return this.unregisteredHere(m);
      default: return undefined;
    }
  }

  /** Where requests that still wait stand among every client's: [token, seq, ...] (for reclaim). */
  queueOrder(seqs) {
    if (!Array.isArray(seqs)) return;
    for (let i = 0; i + 1 < seqs.length; i += 2) {
      const record = this.records.get(seqs[i]);
      if (record !== undefined && record.state === SENT && Number.isSafeInteger(seqs[i + 1])) record.seq = seqs[i + 1];
    }
  }

  welcome(m) {
    if (m.v !== PROTOCOL_VERSION) {
      this.fail(protocolMismatch(m.v));
      return;
    }
    const entries = this.helloEntries ?? [];
    this.helloEntries = null;
    this.hubId = m.hubId;
    for (const [port, worker, as] of this.unwelcomedAdopts.splice(0)) this.adopt(port, worker, as);
    entries.forEach((entry, i) => {
      const record = this.records.get(entry.token);
      if (record === undefined) return;
      const outcome = m.reclaimed[i];
      if (record.state === RELEASING && outcome === 'held') {
        // It was ours until now: released here, and the callback's result stands.
        this.records.delete(entry.token);
        this.toHub({ t: C.release, token: entry.token });
        record.answered?.();
        return;
      }
      if (outcome === 'held') return;
      // Queued there; a grant that arrived before this welcome (a hub of an older build sends it
      // first) stands: the context holds that lock, and its release must reach the hub.
      if (outcome === 'queued') { if (record.state !== HELD) { record.state = SENT; record.seq = null; } return; }
      // Not taken back: someone else may have it now. The holder learns as a stolen holder does.
      this.records.delete(entry.token);
      record.listener.stolen(entry.token, LOST.notReclaimed);
      record.answered?.();
    });
    // Observers answered before go on at this hub (its first answer tells them what changed
    // meanwhile); the others' first message is still on its way.
    for (const [call, observer] of this.observers) if (observer.started) this.send({ t: C.observe, call });
    this.vouch();
    this.sendSentinelSoon();
    this.sendAlive();
    this.idle();
  }

  /**
   * The hub declared this context dead (it was silent: frozen, throttled, paused in a debugger)
   * and released its locks. Held locks are lost (their promises reject with an AbortError, as on
   * a steal); waiting requests are registered again, in order.
   */
  declaredDead(why = null) {
    this.stats.declaredDead++;
    this.log('warn', 'the lock hub declared this context dead; its held locks were released' + (why === null ? '' : ` (${why})`));
    this.loseHeld(LOST.declaredDead);
    // The hub forgot our aborts with our requests: they are done.
    for (const [token, resolve] of this.aborts) { this.records.delete(token); resolve(true); }
    this.aborts.clear();
    this.abortsMade.clear();
    this.hello(null);
  }

  fail(error) {
    if (this.failure === null) this.log('error', `lock requests fail: ${error.message}`);
    this.failure = error;
    const records = [...this.records];
    this.records.clear();
    for (const [token, record] of records) {
      if (record.state === HELD || record.state === RELEASING) record.listener.stolen(token);
      else record.listener.failed(token, error);
      record.answered?.();
    }
    for (const [, resolve] of this.aborts) resolve(false);
    this.aborts.clear();
    this.abortsMade.clear();
    this.queries.failAll(error);
    this.flow.takeAll();
    this.flow.close();
    for (const [port] of this.unwelcomedAdopts.splice(0)) refusePort(port, error);
    this.idle();
  }

  /** Host hook: an observer was added, answered or removed (the machine host keeps its thread alive meanwhile). */
  observersChanged() {}

  /** An observer's answer: the first starts it; a later start (a new hub) is a gap in its records. */
  observed(m) {
    const observer = this.observers.get(m.call);
    if (observer === undefined || !Array.isArray(m.records) || !Array.isArray(m.held) || !Array.isArray(m.pending)) return;
    const snapshot = { held: m.held, pending: m.pending };
    if (typeof m.failed === 'string') {
      // (Never told a state it does not have: this observer is not called.)
      this.log('warn', `observeLocks: the hub could not observe: ${m.failed.slice(0, 300)}`);
      return;
    }
    if (m.start === true && !observer.started) {
      observer.started = true;
      this.observersChanged();
      observer.sink.start(snapshot);
    } else if (m.start === true) {
      observer.sink.changes([{ type: 'lost' }], snapshot);
    } else {
      observer.sink.changes(m.records, snapshot);
    }
  }}
