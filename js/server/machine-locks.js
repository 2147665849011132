// Backend 'machine': each space key is a machine lock space (js/machine: a hub process per space,
// over a Unix domain socket), and each remote session one client of its hub, so several lock
// server processes on this host share the space's locks. Grants carry the hub's fencing tokens.
// The space's name in the machine folder is derived from the key (any string) by a hash.
// Each session's client has a lease of the server's grace and a clientId and key derived from the
// session's id and secret, so that a server process started after this one died adopts it when
// the remote client resumes (machine-hub.js "Leases"; docs/remote.md "Server restarts").
import { createHash } from 'node:crypto';
import { createLockManager } from '../api/lock-manager.js';
import { MachineBackend } from '../machine/machine-backend.js';
import { spaceFiles, defaultFolder } from '../machine/place.js';
import { LEASE_MAX_MS } from '../machine/lease.js';

/** The machine lock space name of a space key: 'remote-' and 40 hex digits of its SHA-256. */
export function machineSpaceName(key) {
  return `remote-${createHash('sha256').update(String(key)).digest('hex').slice(0, 40)}`;
}

export function machineLocks(key, { folder = defaultFolder() } = {}) {
  const files = spaceFiles(folder, machineSpaceName(key));
  const open = (identity = {}) => {
    let closing = false;
    let quiet = false;
    const backend = new MachineBackend(files, {
      ...identity,
      // A session's end closes its connection through fail(): not an error worth a warning; nor a
      // refused adoption (connection.js answers the client 4004).
      log: (level, text) => { if (!closing && !quiet) process.emitWarning(`weblocks-wasm lock server (machine lock space ${files.space}): ${text}`, { code: `WEBLOCKS_MACHINE_${level.toUpperCase()}` }); },
    });
    const close = () => {
      closing = true;
      backend.fail(new DOMException('The lock server closed this session.', 'InvalidStateError'));
    };
    return { backend, close, quiet: (value) => { quiet = value; } };
  };
  let viewer = null; // one more client of the hub, for the server's own query() and observeLocks
  const view = () => (viewer ??= open()).backend;
  return {
    adopts: true,
    /**
     * A session's client; `session`: { id, secret, grace, adopt } (adopt: a session of a server
     * process that died, taken over: claim() each of its requests, then await adopt()).
     */
    newClient(clientId, session) {
      const identity = session === undefined ? {} : {
        clientId: `remote-${session.id}`,
        key: createHash('sha256').update(`weblocks-remote-session:${session.secret}`).digest('base64'),
        lease: Math.min(session.grace, LEASE_MAX_MS),
      };
      const { backend, close, quiet } = open(identity);
      return {
        clientId: backend.clientId,
        backend,
        locks: createLockManager(backend), // (for query())
        close,
        useToken: (token) => backend.useToken(token),
        claim: (token, held) => backend.claim(token, held),
        setDeadlock: (value) => { backend.deadlock = value; },
        adopt: () => {
          quiet(true);
          const adoption = backend.adopt();
          adoption.then(() => quiet(false), () => {});
          return adoption;
        },
      };
    },
    source: () => ({ observe: (sink) => view().observeSource().observe(sink) }),
    query: () => view().query(),
    dispose() {
      viewer?.close();
      viewer = null;
    },
  };
}
