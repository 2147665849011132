// Flow control of one context's messages to the hub (FLOW in js/hub/protocol.js). The browser
// delivers every port's messages to the hub in one queue and the hub keeps a bounded inbox per
// connection, so a context never has more than `window` messages that the hub may not have handled
// yet: the rest wait here, in order, and go as the hub catches up. The hub says how far it got
// only when asked: every `syncEvery` counted messages a C.sync goes out, and its H.synced answer
// means everything sent before it was handled. A context that sends little never sends a sync.
// Only messages the hub files in its inbox are counted (pongs, probes and releases are handled
// on arrival and go straight out).
import { C, FLOW } from '../hub/protocol.js';
/** @import { ContextMessage } from '../hub/protocol.js' */

export class Flow {
  /**
   * @param {(message: ContextMessage, transfer?: Transferable[]) => boolean} post posts on the current port; false when the message
   *              is no longer wanted (an aborted request, an answered query): it is skipped
   * @param {object} [options] { window, syncEvery }
   */
  constructor(post, options = {}) {
    this.post = post;
    this.window = options.window ?? FLOW.WINDOW;
    this.syncEvery = options.syncEvery ?? FLOW.SYNC_EVERY;
    this.queue = [];       // [message, transfer] waiting to be sent, oldest first (from queueHead)
    this.queueHead = 0;
    this.open = false;     // a port is attached and registered (or registering): messages may go
    this.sent = 0;         // counted messages posted on this port since its hello
    this.handled = 0;      // of those, how many the hub has handled (the latest answered sync)
    this.lastSync = 0;     // `sent` when the latest sync went out
    this.syncs = [];       // [call, sent] of syncs not answered yet, oldest first
    this.barriers = new Map(); // call -> resolve, of barrier() syncs not answered yet
    this.calls = 0;
    /** Measurements: syncs sent, most messages waiting here at once. */
    this.stats = { syncs: 0, mostWaiting: 0 };
  }

  /** Messages waiting here, not sent yet. */
  get waiting() {
    return this.queue.length - this.queueHead;
  }

  /** A hello goes out on a port (a new one, or again on the same one): the hub's inbox for us starts empty. */
  restart() {
    this.open = true;
    this.sent = 0;
    this.handled = 0;
    this.lastSync = 0;
    this.syncs = [];
    // Barriers of the port before: their answer will not come, and what they waited for is moot.
    for (const resolve of this.barriers.values()) resolve();
    this.barriers.clear();
  }

  /**
   * A sync sent now, ahead of the messages still waiting here: resolves once the hub answered it,
   * so once this context has read every message the hub sent before (the port is in order), or
   * when the port is replaced (restart; without a port open, only then).
   */
  barrier() {
    const call = ++this.calls;
    if (this.open) {
      this.post({ t: C.sync, call });
      this.sent++;
      this.syncs.push([call, this.sent]);
    }
    return new Promise((resolve) => { this.barriers.set(call, resolve); });
  }

  /** No port to send on (lost, asleep, failed): messages wait. */
  close() {
    this.open = false;
  }

  /** Posts a message that must go now, ahead of what waits (a hello, the sentinel's port), and counts it. */
  /** @param {ContextMessage} message @param {Transferable[]} [transfer] */
  postNow(message, transfer) {
    if (this.post(message, transfer)) this.count();
  }

  /** Queues a message behind the others and sends what the window allows. */
  /** @param {ContextMessage} message @param {Transferable[]} [transfer] */
  enqueue(message, transfer) {
    this.queue.push([message, transfer]);
    if (this.waiting > this.stats.mostWaiting) this.stats.mostWaiting = this.waiting;
    this.pump();
  }

  /** Takes out every message still waiting (a hello asks again for what it needs). */
  takeAll() {
    const waiting = this.queue.slice(this.queueHead);
    this.queue = [];
    this.queueHead = 0;
    return waiting;
  }

  /** The hub handled everything before sync `call`. */
  synced(call) {
    while (this.syncs.length > 0 && this.syncs[0][0] <= call) {
      const [done, at] = this.syncs.shift();
      if (done === call) this.handled = at;
      this.barriers.get(done)?.();
      this.barriers.delete(done);
    }
    this.pump();
  }

  pump() {
    while (this.open && this.queueHead < this.queue.length && this.sent - this.handled < this.window) {
      const [message, transfer] = this.queue[this.queueHead];
      this.queue[this.queueHead++] = undefined;
      if (this.post(message, transfer)) this.count();
    }
    if (this.queueHead === this.queue.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 4096 && this.queueHead * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  count() {
    this.sent++;
    if (this.sent - this.lastSync < this.syncEvery) return;
    const call = ++this.calls;
    this.post({ t: C.sync, call });
    this.sent++;
    this.lastSync = this.sent;
    this.syncs.push([call, this.sent]);
    this.stats.syncs++;
  }
}
