// The worker a tab-election Spoke starts (module worker): the polyfill, then tab-election's Hub
// with one service. The Hub elects a leader among the workers of all tabs with navigator.locks
// requested here, inside the worker; only the leader's service runs (init, then the calls).
import '../remove-native.js'; // tests only: run against the polyfill where a native API exists
import '/js/browser/polyfill.js';
import { Hub } from '/build/libs/tab-election.js';
import { clock, counter, yieldTask } from './common.js';

const workerId = Math.random().toString(36).slice(2, 10);

class CounterService {
  namespace = 'counter';
  queue = Promise.resolve();

  async init() {
    self.postMessage({ type: 'leader', workerId, at: clock() });
  }

  /**
   * A read-modify-write of the shared counter, one call after another within this service: the
   * count is right only while a single leader serves (two leaders would both run each call).
   */
  increment(key) {
    const run = this.queue.then(async () => {
      const read = await counter.read(key);
      await yieldTask();
      await counter.write(key, read + 1);
      return { value: read + 1, workerId };
    });
    this.queue = run.catch(() => {});
    return run;
  }

  whoLeads() {
    return workerId;
  }
}

new Hub((hub) => hub.register(new CounterService()));
self.postMessage({ type: 'started', workerId, at: clock() });
