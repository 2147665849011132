// This client's etcd lease: every request key is created with it, so a client that dies (or is
// cut off) past the TTL loses its keys: its locks are released and its requests dropped.
//
// The keeper also decides, on this side, when the lease must be taken as lost: a keep-alive
// sent at local time t and answered renews the lease until at least t + TTL on the server
// (the server handled it after t). So once `TTL` has passed since the send time of the last
// answered keep-alive, the lease may be gone there: the keeper declares it lost (onLost) at
// that moment, before any other client can be granted what this one held, provided the clocks
// run at the same rate (a margin of LOCAL_MARGIN of the TTL covers drift). A process paused past
// that moment learns it as soon as it runs again: fencing tokens cover what it did in between.
//
// A round of keep-alives goes to one member, and to the next one as soon as it fails, or when no
// answer came within a tenth of the TTL (the earlier one stays open: whichever answers first
// renews). So one slow, paused or partitioned member costs a round a tenth of the TTL, never the
// lease, while another member answers.
import { setTimeout, clearTimeout } from 'node:timers';

const LOCAL_MARGIN = 0.05;
const HEDGE_SHARE = 0.1;    // of the TTL: how long a round waits for one member before asking the next
const HEDGE_MIN_MS = 100;

export class LeaseKeeper {
  /**
   * @param leaseClient   etcd3's RPC LeaseClient (grant, revoke)
   * @param endpoints     a LeaseClient per etcd member, for keep-alives
   * @param ttlSeconds    the lease TTL (integer seconds, at least 1)
   * @param intervalMs    how often a keep-alive round starts
   * @param onLost(id, reason)  called once per lease that is lost (never for a revoked one)
   */
  constructor(leaseClient, endpoints, ttlSeconds, intervalMs, onLost) {
    this.leaseClient = leaseClient;
    this.endpoints = endpoints;
    this.nextEndpoint = Math.floor(Math.random() * endpoints.length);
    this.hedgeMs = Math.max(HEDGE_MIN_MS, Math.min(intervalMs, ttlSeconds * 1000 * HEDGE_SHARE));
    this.ttlMs = ttlSeconds * 1000;
    this.ttlSeconds = ttlSeconds;
    this.intervalMs = intervalMs;
    this.onLost = onLost;
    this.current = null; // { id: Promise<string>, leaseId, validUntil, timer, deadline, gone }
  }

  /** The lease to create keys with (a new one after a loss). */
  leaseId() {
    if (this.current === null) this.current = this.grant();
    return this.current.id;
  }

  /** Whether `leaseId` is the current lease and still valid by the local clock. */
  isValid(leaseId) {
    const lease = this.current;
    if (lease === null || lease.leaseId !== leaseId || lease.gone) return false;
    if (performance.now() >= lease.validUntil) {
      this.lose(lease, 'its keep-alives went unanswered for longer than the lease TTL');
      return false;
    }
    return true;
  }

  grant() {
    const lease = { id: null, leaseId: null, validUntil: 0, timer: null, deadline: null, gone: false };
    const sentAt = performance.now();
    lease.id = this.leaseClient.leaseGrant({ TTL: this.ttlSeconds }).then((answer) => {
      lease.leaseId = answer.ID;
      this.renewed(lease, sentAt);
      this.schedule(lease);
      return answer.ID;
    }, (error) => {
      if (this.current === lease) this.current = null; // the next request tries again
      throw error;
    });
    return lease;
  }

  renewed(lease, sentAt) {
    const until = sentAt + this.ttlMs * (1 - LOCAL_MARGIN);
    if (until <= lease.validUntil) return; // a later keep-alive was answered first
    lease.validUntil = until;
    this.armDeadline(lease);
  }

  /**
   * The local deadline: at validUntil the lease is taken as lost. A timer measures its delay from
   * the event loop's cached clock, which lags performance.now() by however long the turn that set
   * it had run: on a loaded machine it fires before validUntil, so it looks again at the time left
   * rather than trusting that it fired late enough (it once fired early and was never re-armed,
   * and a holder cut off from etcd learned its loss only from its next write, seconds later).
   */
  armDeadline(lease) {
    if (lease.deadline !== null) clearTimeout(lease.deadline);
    lease.deadline = setTimeout(() => {
      lease.deadline = null;
      if (this.isValid(lease.leaseId)) this.armDeadline(lease);
    }, Math.max(0, lease.validUntil - performance.now()) + 1);
    lease.deadline.unref();
  }

  schedule(lease) {
    if (lease.gone) return;
    lease.timer = setTimeout(() => this.keepAliveRound(lease), this.intervalMs);
    // Keep-alives never keep the process alive by themselves (pending requests do, through their watch).
    lease.timer.unref();
  }

  /**
   * One round: a keep-alive to the next member; to the one after it at once if that fails, or
   * after hedgeMs without an answer (at most one open per member). The first answer ends the
   * round (and any answer renews); the deadline set by renewed() decides when the lease is lost.
   */
  keepAliveRound(lease) {
    const round = { over: false, open: new Set(), failures: 0, timer: null };
    const end = () => {
      round.over = true;
      clearTimeout(round.timer);
    };
    const next = () => {
      clearTimeout(round.timer);
      if (round.over || lease.gone) return end();
      const count = this.endpoints.length;
      let index = -1;
      for (let i = 0; i < count && index < 0; i++) {
        const candidate = (this.nextEndpoint + i) % count;
        if (!round.open.has(candidate)) index = candidate;
      }
      if (index < 0) return; // every member has a keep-alive open: the first answer or failure goes on
      this.nextEndpoint = (index + 1) % count;
      round.open.add(index);
      round.timer = setTimeout(next, this.hedgeMs);
      round.timer.unref();
      const sentAt = performance.now();
      this.keepAliveOnce(this.endpoints[index], lease).then((answer) => {
        round.open.delete(index);
        if (lease.gone) return end();
        if (answer.TTL === '0' || Number(answer.TTL) <= 0) {
          end();
          this.lose(lease, 'etcd reports it expired');
          return;
        }
        this.renewed(lease, sentAt);
        if (!round.over) {
          end();
          this.schedule(lease);
        }
      }, () => {
        round.open.delete(index);
        if (round.over) return;
        // Unanswered (a member down, a partition): the next member at once, but after failures
        // from every member a short pause (no busy loop while etcd is unreachable).
        round.failures++;
        if (round.failures % count !== 0) {
          next();
        } else {
          clearTimeout(round.timer);
          round.timer = setTimeout(next, this.hedgeMs);
          round.timer.unref();
        }
      });
    };
    next();
  }

  /** One keep-alive on a stream of its own to one member, so no call stays open between rounds. */
  async keepAliveOnce(leaseClient, lease) {
    let stream = null;
    try {
      stream = await leaseClient.leaseKeepAlive();
      return await new Promise((resolve, reject) => {
        // Given up after the TTL: by then the deadline has decided.
        const timer = setTimeout(() => reject(new Error('keep-alive unanswered')), this.ttlMs);
        timer.unref();
        stream.on('data', (data) => { clearTimeout(timer); resolve(data); });
        stream.on('error', (error) => { clearTimeout(timer); reject(error); });
        stream.on('end', () => { clearTimeout(timer); reject(new Error('keep-alive stream ended')); });
        stream.write({ ID: lease.leaseId });
      });
    } finally {
      try { stream?.end(); } catch { /* already closed */ }
    }
  }

  /** etcd said the lease is not there (a write with it was refused): lost, if it is the current one. */
  expired(leaseId) {
    const lease = this.current;
    if (lease !== null && lease.leaseId === leaseId) this.lose(lease, 'etcd reports it expired');
  }

  lose(lease, reason) {
    if (lease.gone) return;
    lease.gone = true;
    clearTimeout(lease.timer);
    clearTimeout(lease.deadline);
    if (this.current === lease) this.current = null;
    this.onLost(lease.leaseId, reason);
  }

  /** Revokes the lease (every key of this client goes at once); nothing is reported lost. */
  async revoke() {
    const lease = this.current;
    if (lease === null) return;
    this.current = null;
    lease.gone = true;
    clearTimeout(lease.timer);
    clearTimeout(lease.deadline);
    let id;
    try {
      id = await lease.id;
    } catch {
      return; // never granted
    }
    await this.leaseClient.leaseRevoke({ ID: id }).catch(() => {});
  }
}
