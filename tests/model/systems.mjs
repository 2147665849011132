// The two systems the differential tester drives with the same operations, behind one interface:
//   open(clientId, ownerTag) -> handle      close(handle)        closeOwner(ownerTag) -> count
//   request(handle, name, mode, wait) -> { status, id }     (mode 'exclusive'|'shared', wait 'wait'|'no-wait'|'preempt')
//   release(handle, id) / abort(handle, id) -> true | false  (an EngineError counts as false: "no effect")
//   takeEvents(handle) -> [{ type: 'granted'|'stolen', id }]
//   snapshot() -> { held: [{ name, mode, clientId }], pending: [...] }
import { SpecLockManager } from './spec-model.mjs';

export class ModelSystem {
  constructor(manager = new SpecLockManager(), label = 'model') { this.manager = manager; this.label = label; }
  open(clientId, ownerTag) { return this.manager.openAgent(clientId, ownerTag); }
  close(handle) { this.manager.closeAgent(handle); }
  closeOwner(ownerTag) { return this.manager.closeAgentsOfOwner(ownerTag); }
  request(handle, name, mode, wait) { return this.manager.request(handle, name, mode, wait); }
  release(handle, id) { return this.manager.release(handle, id); }
  abort(handle, id) { return this.manager.abort(handle, id); }
  takeEvents(handle) { return this.manager.takeEvents(handle); }
  snapshot() { return this.manager.snapshot(); }
  counts() {
    const { held, pending } = this.manager.snapshot();
    return { clients: this.manager.agents.size, entries: held.length + pending.length };
  }
}

// The engine through its JS contract (js/engine/index.js), with the contract's numeric codes
// translated to the model's words.
export class EngineSystem {
  constructor(engine, api) {
    this.engine = engine;
    this.api = api;                   // the js/engine module: MODE, WAIT, STATUS, EVENT, EngineError
    this.label = 'engine';
    this.statusNames = new Map(Object.entries(api.STATUS).map(([k, v]) => [v, k]));
    this.eventNames = new Map(Object.entries(api.EVENT).map(([k, v]) => [v, k]));
    this.waitCodes = { wait: api.WAIT.wait, 'no-wait': api.WAIT.noWait, preempt: api.WAIT.preempt };
  }
  open(clientId, ownerTag) { return this.engine.openClient(clientId, ownerTag); }
  close(handle) { this.engine.closeClient(handle); }
  closeOwner(ownerTag) { return this.engine.closeClientsOfOwner(ownerTag); }
  request(handle, name, mode, wait) {
    const { status, id } = this.engine.request(handle, name, this.api.MODE[mode], this.waitCodes[wait]);
    return { status: this.statusNames.get(status) ?? `unknown status ${status}`, id };
  }
  release(handle, id) { return this.noEffectOnError(() => this.engine.release(handle, id)); }
  abort(handle, id) { return this.noEffectOnError(() => this.engine.abort(handle, id)); }
  takeEvents(handle) {
    return this.engine.takeEvents(handle).map(({ type, id }) => ({ type: this.eventNames.get(type) ?? `unknown event ${type}`, id }));
  }
  snapshot() { return this.engine.snapshot(); }
  counts() {
    const { clients, entries } = this.engine.stats();
    return { clients, entries };
  }
  noEffectOnError(fn) {
    try {
      return fn();
    } catch (error) {
      if (error instanceof this.api.EngineError) return false;
      throw error;
    }
  }
}

let engineApi = null;
export async function loadEngineApi() {
  engineApi ??= await import('../../js/engine/index.js');
  return engineApi;
}

// shared: the build the Node host uses (shared memory, atomics), attached as the first agent.
export async function createEngineSystem({ shared = false } = {}) {
  const api = await loadEngineApi();
  if (!shared) return new EngineSystem(await api.createLocalEngine(), api);
  const module = await api.compileEngine({ shared: true });
  return new EngineSystem(await api.attachEngine({ module, memory: api.createEngineMemory({ shared: true }) }), api);
}
