// Backend { etcd: { hosts, namespace } }: each space key is an etcd lock space of its own (the
// namespace plus a hash of the key), and each remote session one client of it (js/etcd: its own
// etcd client and lease), so lock servers on any number of machines pointed at one cluster share
// each space's locks. Grants carry etcd's fencing tokens. Every session costs an etcd connection
// and a lease (docs/remote.md, "Backends").
import { createHash } from 'node:crypto';
import { createLockManager } from '../api/lock-manager.js';
import { EtcdBackend } from '../etcd/etcd-backend.js';
import { connectEtcd, connectEndpoints } from '../etcd/load-client.js';
import { etcdOptions } from '../etcd/options.js';

/** The etcd namespace of a space key under the server's namespace. */
export function etcdSpaceNamespace(namespace, key) {
  return `${namespace}remote/${createHash('sha256').update(String(key)).digest('hex').slice(0, 40)}/`;
}

export function etcdLocks(key, etcd) {
  const base = etcd.namespace ?? 'weblocks/';
  const options = { ...etcd, namespace: etcdSpaceNamespace(base, key) };
  const open = () => {
    const checked = etcdOptions(options);
    const clientReady = connectEtcd(checked);
    clientReady.catch(() => {});
    const endpointsReady = clientReady.then(() => connectEndpoints(checked));
    endpointsReady.catch(() => {});
    return new EtcdBackend(clientReady, { ...checked, endpointsReady });
  };
  let viewer = null; // one more client, for the server's own query() and observeLocks
  const view = () => (viewer ??= open());
  return {
    newClient() {
      const backend = open();
      return { clientId: backend.clientId, backend, locks: createLockManager(backend), close: () => backend.close() };
    },
    source: () => ({ observe: (sink) => view().observeSource().observe(sink) }),
    query: () => view().query(),
    dispose() {
      viewer?.close().catch(() => {});
      viewer = null;
    },
  };
}
