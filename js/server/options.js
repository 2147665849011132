// createLockServer's options, checked once, with their documented defaults (docs/remote.md).
import { etcdOptions } from '../etcd/options.js';
const DEFAULTS = Object.freeze({
  pingInterval: 5000,          // ms between the server's WebSocket pings; a ping unanswered by the next one loses the connection
  grace: 15000,                // ms a lost connection's session keeps its locks and queue places for a resume (from its unanswered ping); 'machine': a dead server process's sessions too
  ticketTimeout: 30000,        // ms a fence() ticket can hold its lock past the holder's release
  maxNameLength: 1024,         // UTF-16 code units of a lock name
  maxFrameBytes: 16 * 1024,    // bytes of one client frame (bigger: close 1009)
  maxOutstanding: 1024,        // requests + queries + observers a connection may have open at once
  maxUnacked: 8192,            // frames the client may leave unacknowledged
  maxConnectionsPerSpace: 256, // sessions (connected or in grace) per space key
  maxConnections: 10000,       // sessions in all
});

function positiveInteger(options, key) {
  const value = options[key] ?? DEFAULTS[key];
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`createLockServer: '${key}' must be a positive integer (got ${String(value)}).`);
  return value;
}

/** @param {any} options */
export function checkServerOptions(options = {}) {
  if (typeof options !== 'object' || options === null) throw new TypeError('createLockServer: options must be an object.');
  const { authorize, backend = 'process', origins } = options;
  if (typeof authorize !== 'function') {
    throw new TypeError('createLockServer: `authorize(req)` is required: it returns the space key of an upgrade request (or null/false to refuse).');
  }
  const etcd = backend !== null && typeof backend === 'object' && backend.etcd !== null && typeof backend.etcd === 'object';
  if (backend !== 'process' && backend !== 'machine' && !etcd) {
    throw new TypeError(`createLockServer: backend ${JSON.stringify(backend)} is not supported: 'process', 'machine' or { etcd: { hosts, namespace } } (see docs/remote.md, "Backends").`);
  }
  if (etcd) etcdOptions(backend.etcd); // its hosts and the rest, checked now rather than at the first client
  if (options.machineFolder !== undefined && typeof options.machineFolder !== 'string') {
    throw new TypeError('createLockServer: `machineFolder` is a folder path (default: the machine lock space\'s, docs/api.md).');
  }
  if (origins !== undefined && !Array.isArray(origins) && typeof origins !== 'function') {
    throw new TypeError('createLockServer: `origins` is an array of allowed origins or a function (origin, req) => boolean.');
  }
  const checked = { authorize, backend, origins, machineFolder: options.machineFolder };
  for (const key of Object.keys(DEFAULTS)) checked[key] = positiveInteger(options, key);
  return checked;
}

export { DEFAULTS };
