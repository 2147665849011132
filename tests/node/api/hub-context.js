// For the tests that drive Hub and HubBackend in one thread: a context as a page runs it
// (HubBackend and its LockManager) whose every connection is a fresh MessageChannel to the hub
// current at that moment, as a page's SharedWorker port would be.
import { MessageChannel } from 'node:worker_threads';
import { HubBackend } from '../../../js/browser/hub-backend.js';
import { createLockManager } from '../../../js/api/index.js';

/**
 * `hubNow()` is the hub a connection goes to (tests that replace their hub pass a getter);
 * `ports` collects both ends of every channel for the test to close; `wire(hubSide)` may watch or
 * wrap the hub's end before the hub connects it; `options` go to HubBackend (log quiet by default).
 * -> { backend, locks }
 */
export function hubContext({ hubNow, ports, clientId, options = {}, wire = () => {} }) {
  const backend = new HubBackend(async () => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    wire(port2);
    hubNow().connect(port2);
    return port1;
  }, { clientId, log: () => {}, ...options });
  return { backend, locks: createLockManager(backend) };
}
