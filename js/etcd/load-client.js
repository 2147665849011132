// The etcd client (npm "etcd3", an optional peer dependency): loaded only when an etcd lock
// manager is created, so users who never point at etcd do not install or load gRPC.
const INSTALL_HINT = 'the etcd lock space needs the npm package "etcd3" (an optional peer dependency of weblocks-wasm): run `npm install etcd3`';

/** etcd3's Etcd3 class, or a rejection whose message names the package to install. */
export async function loadEtcd3() {
  let module;
  try {
    module = await import('etcd3');
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' || error?.code === 'MODULE_NOT_FOUND') {
      const missing = new Error(`weblocks-wasm: ${INSTALL_HINT}.`, { cause: error });
      missing.code = 'ERR_WEBLOCKS_ETCD3_MISSING';
      throw missing;
    }
    throw error;
  }
  return module.Etcd3 ?? module.default?.Etcd3;
}

/**
 * A client for `hosts`. Each unary call gets a deadline (`callTimeout` ms), so a call to a
 * member that stopped answering fails and is retried elsewhere; watch and keep-alive streams get none.
 */
export async function connectEtcd({ hosts, callTimeout, etcd3Options }) {
  const Etcd3 = await loadEtcd3();
  const client = new Etcd3({
    ...etcd3Options,
    hosts,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + callTimeout }),
  });
  dropStrayWatchAnswers(client.watchManager);
  return client;
}

/**
 * etcd3's watch stream throws, from its 'data' listener (an uncaught exception: the process
 * ends), when an answer arrives for a watcher it no longer has: a broken stream's last answers,
 * or a cancelled watch's. Seen in the chaos test with connections cut. Nobody waits for such an
 * answer (a watcher that is still wanted is created again and resumes after what its mirror
 * applied, name-mirror.js), so it is dropped.
 */
function dropStrayWatchAnswers(manager) {
  if (typeof manager?.handleResponse !== 'function' || typeof manager.handleCreatedResponse !== 'function') return;
  // A stream that broke can still emit answers it had read: after etcd3 has taken it as broken,
  // they would go to whichever watcher has their watch id on the next stream (ids start again at
  // 0 on each stream), another name's or a replay out of order. Only the current stream speaks.
  if (typeof manager.client?.watch === 'function') {
    const openStream = manager.client.watch.bind(manager.client);
    manager.client.watch = async (...args) => {
      const stream = await openStream(...args);
      const emit = stream.emit.bind(stream);
      stream.emit = (event, ...rest) => {
        if (event === 'data' && manager.stream !== undefined && (manager.stream !== stream || manager.state !== CONNECTED)) return false;
        return emit(event, ...rest);
      };
      return stream;
    };
  }
  const handleResponse = manager.handleResponse.bind(manager);
  const handleCreatedResponse = manager.handleCreatedResponse.bind(manager);
  manager.handleResponse = (response) => {
    if (manager.watchers.some((watcher) => watcher.id === response.watch_id)) handleResponse(response);
  };
  manager.handleCreatedResponse = (response) => {
    const someoneWaits = response.canceled
      ? manager.watchers.some((watcher) => watcher.id === null)
      : manager.queue?.queue?.length > 0;
    if (someoneWaits) handleCreatedResponse(response);
  };
}

const CONNECTED = 2; // etcd3's WatchManager state while its stream is up

// A fault policy that only runs the call: the keeper decides itself which member to ask next.
const RUN_ONCE = Object.freeze({ execute: (fn) => Promise.resolve().then(() => fn({ attempt: 0 })) });

/**
 * One client per endpoint, for keep-alives (lease-keeper.js sends a round's keep-alives to one
 * member after another, which etcd3's pool of hosts does not let a caller choose). @grpc/grpc-js
 * shares a connection among clients with the same address and options, so these add none.
 */
export async function connectEndpoints({ hosts, callTimeout, etcd3Options }) {
  if (hosts.length < 2) return [];
  const Etcd3 = await loadEtcd3();
  return hosts.map((host) => new Etcd3({
    ...etcd3Options,
    hosts: [host],
    faultHandling: { host: () => RUN_ONCE, global: RUN_ONCE },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + callTimeout }),
  }));
}
