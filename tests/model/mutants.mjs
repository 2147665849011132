// Deliberately wrong lock managers, each with one classic scheduling bug. The tests run the
// differential tester against them to prove it finds such bugs and shrinks them to a few steps.
import { SpecLockManager } from './spec-model.mjs';

export const mutants = {
  // A shared request joins shared holders even when an exclusive request waits before it.
  sharedOvertakesExclusive: class extends SpecLockManager {
    isGrantable(request) {
      if (request.mode === 'shared') return !this.heldLockSet.some((l) => l.mode === 'exclusive' && l.name === request.name);
      return super.isGrantable(request);
    }
  },
  // Releasing a lock grants only the next request, not every shared request that follows it.
  grantsOnlyOne: class extends SpecLockManager {
    processQueue(queue) {
      if (queue.length > 0 && this.isGrantable(queue[0])) {
        const request = queue.shift();
        this.heldLockSet.push({ id: request.id, handle: request.handle, clientId: request.clientId, name: request.name, mode: request.mode });
        if (!request.grantedNow) this.deliver(request.handle, { type: 'granted', id: request.id });
      }
    }
  },
  // A steal takes the lock but never tells the holder it lost it.
  silentSteal: class extends SpecLockManager {
    deliver(handle, event) { if (event.type !== 'stolen') super.deliver(handle, event); }
  },
  // Agent termination releases the agent's locks but leaves its pending requests queued.
  terminationKeepsRequests: class extends SpecLockManager {
    closeAgent(handle) {
      this.agent(handle);
      this.terminating = handle;
      for (const lock of [...this.heldLockSet]) if (lock.handle === handle) this.releaseLock(lock);
      this.terminating = null;
      this.agents.delete(handle);
    }
  },
};
