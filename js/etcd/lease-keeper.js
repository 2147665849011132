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
import { setTimeout, clearTimeout } from 'node:timers';

const LOCAL_MARGIN = 0.05;

export class LeaseKeeper {
  /**
   * @param leaseClient   etcd3's RPC LeaseClient
   * @param ttlSeconds    the lease TTL (integer seconds, at least 1)
   * @param intervalMs    how often a keep-alive is sent
   * @param onLost(id, reason)  called once per lease that is lost (never for a revoked one)
   */
  constructor(leaseClient, ttlSeconds, intervalMs, onLost) {
    this.leaseClient = leaseClient;
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
    lease.validUntil = sentAt + this.ttlMs * (1 - LOCAL_MARGIN);
    if (lease.deadline !== null) clearTimeout(lease.deadline);
    lease.deadline = setTimeout(() => this.isValid(lease.leaseId), lease.validUntil - performance.now() + 1);
    lease.deadline.unref();
  }

  schedule(lease) {
    if (lease.gone) return;
    lease.timer = setTimeout(() => this.keepAliveOnce(lease), this.intervalMs);
    // Keep-alives never keep the process alive by themselves (pending requests do, through their watch).
    lease.timer.unref();
  }

  /** One keep-alive on a stream of its own, so no call stays open between rounds. */
  async keepAliveOnce(lease) {
    if (lease.gone) return;
    const sentAt = performance.now();
    let stream = null;
    try {
      stream = await this.leaseClient.leaseKeepAlive();
      const answer = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('keep-alive unanswered')), Math.max(this.intervalMs, 500));
        stream.on('data', (data) => { clearTimeout(timer); resolve(data); });
        stream.on('error', (error) => { clearTimeout(timer); reject(error); });
        stream.write({ ID: lease.leaseId });
      });
      if (answer.TTL === '0' || Number(answer.TTL) <= 0) {
        this.lose(lease, 'etcd reports it expired');
        return;
      }
      if (!lease.gone) this.renewed(lease, sentAt);
    } catch {
      // Unanswered (a member down, a partition): try again next round; the deadline decides.
    } finally {
      try { stream?.end(); } catch { /* already closed */ }
    }
    this.schedule(lease);
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
