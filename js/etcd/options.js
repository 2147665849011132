// The options of an etcd lock manager, checked once, with the fix in every message.
import { randomUUID } from 'node:crypto';

export const DEFAULTS = Object.freeze({
  namespace: 'weblocks/',
  leaseTtl: 10,          // seconds: how long after a crash (or a cut-off) this client's locks stay held
  callTimeout: 5000,     // ms: a unary call to etcd that takes longer fails and is retried
});

/** Normalized options for createLockManager({ etcd }). */
export function etcdOptions(etcd) {
  if (etcd === null || typeof etcd !== 'object') {
    throw new TypeError('weblocks-wasm: createLockManager({ etcd }) needs etcd = { hosts: ["http://host:2379", ...] }.');
  }
  const hosts = typeof etcd.hosts === 'string' ? etcd.hosts.split(',').map((h) => h.trim()).filter(Boolean) : etcd.hosts;
  if (!Array.isArray(hosts) || hosts.length === 0 || !hosts.every((h) => typeof h === 'string' && h !== '')) {
    throw new TypeError('weblocks-wasm: etcd.hosts must list the etcd endpoints, e.g. ["http://10.0.0.1:2379", "http://10.0.0.2:2379"].');
  }
  const leaseTtl = etcd.leaseTtl ?? DEFAULTS.leaseTtl;
  if (!Number.isInteger(leaseTtl) || leaseTtl < 1) {
    throw new RangeError(`weblocks-wasm: etcd.leaseTtl is the lease TTL in whole seconds, at least 1 (got ${leaseTtl}).`);
  }
  const keepAliveInterval = etcd.keepAliveInterval ?? Math.round((leaseTtl * 1000) / 3);
  if (!(Number.isFinite(keepAliveInterval) && keepAliveInterval > 0 && keepAliveInterval < leaseTtl * 1000)) {
    throw new RangeError(`weblocks-wasm: etcd.keepAliveInterval (ms) must be positive and below the lease TTL (${leaseTtl * 1000} ms); got ${keepAliveInterval}.`);
  }
  const namespace = etcd.namespace ?? DEFAULTS.namespace;
  if (typeof namespace !== 'string') throw new TypeError('weblocks-wasm: etcd.namespace must be a string (a key prefix, e.g. "weblocks/").');
  const callTimeout = etcd.callTimeout ?? DEFAULTS.callTimeout;
  return {
    hosts, leaseTtl, keepAliveInterval, namespace, callTimeout,
    clientId: etcd.clientId ?? randomUUID(),
    etcd3Options: etcd.etcd3Options ?? {},
  };
}

/** Options from the environment (the register-etcd preload). */
export function etcdOptionsFromEnv(env = process.env) {
  const hosts = env.WEBLOCKS_ETCD_ENDPOINTS;
  if (hosts === undefined || hosts.trim() === '') {
    throw new Error('weblocks-wasm/register-etcd: set WEBLOCKS_ETCD_ENDPOINTS to the etcd endpoints, comma-separated '
      + '(e.g. WEBLOCKS_ETCD_ENDPOINTS=http://10.0.0.1:2379,http://10.0.0.2:2379).');
  }
  const number = (name) => (env[name] === undefined || env[name] === '' ? undefined : Number(env[name]));
  return etcdOptions({
    hosts,
    namespace: env.WEBLOCKS_ETCD_NAMESPACE || undefined,
    leaseTtl: number('WEBLOCKS_ETCD_LEASE_TTL'),
    keepAliveInterval: number('WEBLOCKS_ETCD_KEEPALIVE_MS'),
  });
}
