// For the tests that drive Hub and HubBackend in one thread: a context as a page runs it
// (HubBackend and its LockManager) whose every connection is a fresh MessageChannel to the hub
// current at that moment, as a page's SharedWorker port would be.
import { MessageChannel } from 'node:worker_threads';
import { HubBackend } from '../../../js/browser/hub-backend.js';
import { createLockManager } from '../../../js/api/index.js';
import { createLocalEngine } from '../../../js/engine/index.js';
import { Hub } from '../../../js/hub/hub.js';

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

const quiet = () => {};

/** A lock space: one hub at a time; clients connect to whichever is current. Ends after test `t`. */
export async function lockSpace(t, liveness = {}, hubOptions = {}) {
  const space = {
    hub: new Hub(await createLocalEngine(), { hubId: 'first', log: quiet, liveness, ...hubOptions }),
    ports: [],
    hubPorts: [],
    /** The hub dies: its timers stop and its ports go dead (what it would still send is lost). */
    async replaceHub(options) {
      space.hub.stop();
      for (const port of space.hubPorts) port.close();
      space.hubPorts = [];
      space.hub = new Hub(await createLocalEngine(), { log: quiet, ...options });
    },
    /**
     * The hub's process dies and the browser relaunches it, handing the surviving clients'
     * original ports to the new instance as fresh connects, with no error anywhere (WebKit).
     */
    async relaunchHub(options, { deafTo = [] } = {}) {
      space.hub.stop();
      const ports = space.hubPorts;
      for (const port of ports) port.onmessage = null;
      space.hub = new Hub(await createLocalEngine(), { log: quiet, ...options });
      for (const port of ports) space.hub.connect(port);
      // `deafTo`: clients whose relaunched port carries the hub's messages to them but none of
      // theirs to the hub (measured in WebKitGTK: the greeting arrives, the hello never does).
      for (const client of deafTo) client.hubPort.onmessage = () => {};
    },
    client(clientId, liveness = {}, sentinel = null, flow = undefined, more = {}) {
      const client = { hubPort: null, heard: [] };
      const wire = (hubSide) => { space.hubPorts.push(hubSide); client.hubPort = hubSide; };
      const options = { liveness, sentinel, flow, ...more };
      Object.assign(client, hubContext({ hubNow: () => space.hub, ports: space.ports, clientId, options, wire }));
      const receive = client.backend.receive.bind(client.backend);
      client.backend.receive = (message) => { client.heard.push(message.t); receive(message); };
      return client;
    },
  };
  t.after(() => {
    space.hub.stop();
    for (const port of space.ports) port.close();
  });
  return space;
}

