// Backend 'machine': each space key is a machine lock space (js/machine: a hub process per space,
// over a Unix domain socket), and each remote session one client of its hub, so several lock
// server processes on this host share the space's locks. Grants carry the hub's fencing tokens.
// The space's name in the machine folder is derived from the key (any string) by a hash.
import { createHash } from 'node:crypto';
import { createLockManager } from '../api/lock-manager.js';
import { MachineBackend } from '../machine/machine-backend.js';
import { spaceFiles, defaultFolder } from '../machine/place.js';

/** The machine lock space name of a space key: 'remote-' and 40 hex digits of its SHA-256. */
export function machineSpaceName(key) {
  return `remote-${createHash('sha256').update(String(key)).digest('hex').slice(0, 40)}`;
}

export function machineLocks(key, { folder = defaultFolder() } = {}) {
  const files = spaceFiles(folder, machineSpaceName(key));
  const open = (clientId) => {
    let closing = false;
    const backend = new MachineBackend(files, {
      ...(clientId === undefined ? {} : { clientId }),
      // A session's end closes its connection through fail(): not an error worth a warning.
      log: (level, text) => { if (!closing) process.emitWarning(`weblocks-wasm lock server (machine lock space ${files.space}): ${text}`, { code: `WEBLOCKS_MACHINE_${level.toUpperCase()}` }); },
    });
    const close = () => {
      closing = true;
      backend.fail(new DOMException('The lock server closed this session.', 'InvalidStateError'));
    };
    return { backend, close };
  };
  let viewer = null; // one more client of the hub, for the server's own query() and observeLocks
  const view = () => (viewer ??= open()).backend;
  return {
    newClient(clientId) {
      const { backend, close } = open();
      return { clientId: backend.clientId, locks: createLockManager(backend), close };
    },
    source: () => ({ observe: (sink) => view().observeSource().observe(sink) }),
    query: () => view().query(),
    dispose() {
      viewer?.close();
      viewer = null;
    },
  };
}
