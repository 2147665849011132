// The hub's own hearing. WebKit runs a SharedWorker in the web process of the tab that started it
// and passes every message to or from it through that tab's main thread: while that tab runs a
// long task the hub's timers still fire, but it hears no one (measured in WebKitGTK 2.50: a 4 s
// task in the hub's tab got every other tab declared dead, and a waiter granted while the holder
// held). Silence the hub could not have heard proves nothing. So the hub sends itself an echo
// every tick over a MessageChannel of its own, whose messages take the same road; while an echo
// is late the hub is deaf and declares no one dead, and once it hears again every context gets a
// fresh grace period. Elsewhere the echo also waits behind a backlog of messages in the hub's
// task queue (a flood): a context's answer stuck in that queue is no silence either.

export class Hearing {
  /**
   * @param channel    a MessageChannel (both ends stay in the hub)
   * @param now        the hub's clock
   * @param lateAfter  ms after which an unanswered echo makes the hub deaf
   */
  constructor(channel, now, lateAfter) {
    this.now = now;
    this.lateAfter = lateAfter;
    this.out = channel.port1;
    this.sentAt = null;      // when the outstanding echo was sent (null: none outstanding)
    this.since = -Infinity;  // when the hub heard again after its latest deaf spell
    this.deafSpells = 0;
    channel.port2.onmessage = () => {
      const now = this.now();
      if (this.sentAt !== null && now - this.sentAt >= this.lateAfter) {
        this.since = now;
        this.deafSpells++;
      }
      this.sentAt = null;
    };
    channel.port2.start?.();
  }

  /** On each hub tick: sends an echo if none is out; true while the outstanding one is late. */
  deaf() {
    const now = this.now();
    if (this.sentAt === null) {
      this.sentAt = now;
      this.out.postMessage(null);
      return false;
    }
    return now - this.sentAt >= this.lateAfter;
  }

  stop() {
    this.out.close();
  }
}
