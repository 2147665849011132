// The executable reference model of the Web Locks scheduling algorithms.
// Written from the spec text (seeds/000: sections 2.5, 2.6, 4.1-4.5) and nothing else:
// plain lists and maps, literal steps, no cleverness. It shares no code with the engine.
//
// One model instance is one origin's lock manager. "Agents" are the engine's clients: each has
// a clientId string and an owner tag (a Node thread id, say), and an inbox of the events the
// engine would deliver to it (a queued request granted later, a held lock stolen).

export const ModelStatus = Object.freeze({ granted: 'granted', queued: 'queued', notAvailable: 'notAvailable' });

export class ModelError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class SpecLockManager {
  constructor() {
    this.queueMap = new Map();  // 2.5 lock request queue map: resource name -> lock request queue (array)
    this.heldLockSet = [];      // 2.4 held lock set, in append order
    this.agents = new Map();    // handle -> { clientId, ownerTag, inbox: [] }
    this.nextHandle = 1;
    this.nextId = 1;
    this.terminating = null;    // the agent whose 2.6 steps are running: its grants are never delivered
  }

  openAgent(clientId, ownerTag = 0) {
    const handle = this.nextHandle++;
    this.agents.set(handle, { clientId: String(clientId), ownerTag: ownerTag >>> 0, inbox: [] });
    return handle;
  }

  agent(handle) {
    const agent = this.agents.get(handle);
    if (!agent) throw new ModelError('BAD_CLIENT', `no open agent ${handle}`);
    return agent;
  }

  // 2.5 get the lock request queue.
  getQueue(name) {
    // 1. If queueMap[name] does not exist, set queueMap[name] to a new empty lock request queue.
    if (!this.queueMap.has(name)) this.queueMap.set(name, []);
    // 2. Return queueMap[name].
    return this.queueMap.get(name);
  }

  // 2.5 grantable.
  isGrantable(request) {
    // 1-4. queue for the request's name.
    const queue = this.getQueue(request.name);
    // 5-6.
    const held = this.heldLockSet;
    const mode = request.mode;
    // 7. If queue is not empty and request is not the first item in queue, then return false.
    if (queue.length > 0 && queue[0] !== request) return false;
    // 8. exclusive: true if no lock in held has name equal to name.
    if (mode === 'exclusive') return !held.some((lock) => lock.name === request.name);
    // 9. shared: true if no lock in held has mode "exclusive" and name equal to name.
    return !held.some((lock) => lock.mode === 'exclusive' && lock.name === request.name);
  }

  // 4.1 request a lock. waitMode: 'wait' | 'no-wait' (ifAvailable) | 'preempt' (steal).
  // Returns { status, id }; a request granted within these steps is reported by its status,
  // not by an event (the caller is told synchronously).
  request(handle, name, mode, waitMode) {
    const agent = this.agent(handle);
    if (mode !== 'exclusive' && mode !== 'shared') throw new ModelError('BAD_ARGUMENT', `mode ${mode}`);
    if (!['wait', 'no-wait', 'preempt'].includes(waitMode)) throw new ModelError('BAD_ARGUMENT', `wait ${waitMode}`);
    const ifAvailable = waitMode === 'no-wait';
    const steal = waitMode === 'preempt';
    name = String(name);
    // 1. Let request be a new lock request.
    const request = { id: this.nextId++, handle, clientId: agent.clientId, name, mode, grantedNow: false };
    // 2.1-2.3
    const queue = this.getQueue(name);
    const held = this.heldLockSet;
    if (steal) {
      // 2.4.1 For each lock of held whose name is name: remove it, reject its released promise.
      for (const lock of [...held]) {
        if (lock.name === name) {
          held.splice(held.indexOf(lock), 1);
          this.deliver(lock.handle, { type: 'stolen', id: lock.id });
        }
      }
      // 2.4.2 Prepend request in queue.
      queue.unshift(request);
    } else {
      // 2.5.1 ifAvailable and not grantable: the callback gets null; the queue is untouched.
      if (ifAvailable && !this.isGrantable(request)) return { status: ModelStatus.notAvailable, id: request.id };
      // 2.5.2 Enqueue request in queue.
      queue.push(request);
    }
    // 2.6 Process the lock request queue queue.
    request.grantedNow = true;   // a grant to this request during these steps goes back as the status
    this.processQueue(queue);
    const granted = this.heldLockSet.some((lock) => lock.id === request.id);
    request.grantedNow = false;
    return { status: granted ? ModelStatus.granted : ModelStatus.queued, id: request.id };
  }

  // 4.2 release the lock. Returns true when the caller's agent held it.
  release(handle, id) {
    this.agent(handle);
    // Only the agent a lock belongs to can release it (a lock the caller does not hold: no effect).
    const lock = this.heldLockSet.find((l) => l.id === id && l.handle === handle);
    if (!lock) return false;
    this.releaseLock(lock);
    return true;
  }

  releaseLock(lock) {
    // 2-5. queue for the lock's name.
    const queue = this.getQueue(lock.name);
    // 6. Remove lock from the origin's held lock set.
    const index = this.heldLockSet.indexOf(lock);
    if (index >= 0) this.heldLockSet.splice(index, 1);
    // 7. Process the lock request queue queue.
    this.processQueue(queue);
  }

  // 4.3 abort the request (the signal's abort steps). True when it was still pending.
  abort(handle, id) {
    this.agent(handle);
    const request = this.findPending(id);
    if (!request || request.handle !== handle) return false;
    this.abortRequest(request);
    return true;
  }

  abortRequest(request) {
    // 2-5. queue for the request's name.
    const queue = this.getQueue(request.name);
    // 6. Remove request from queue.
    queue.splice(queue.indexOf(request), 1);
    // 7. Process the lock request queue queue.
    this.processQueue(queue);
  }

  findPending(id) {
    for (const queue of this.queueMap.values()) {
      const request = queue.find((r) => r.id === id);
      if (request) return request;
    }
    return null;
  }

  // 4.4 process the lock request queue.
  processQueue(queue) {
    // 2. For each request of queue: if grantable, grant it. Only the first item can be grantable
    // (2.5 step 7), so this walks from the front and stops at the first request that is not.
    while (queue.length > 0 && this.isGrantable(queue[0])) {
      const request = queue[0];
      // 2.1.1 Remove request from queue.
      queue.shift();
      // 2.1.2-2.1.10 a new lock, appended to the held lock set.
      const lock = { id: request.id, handle: request.handle, clientId: request.clientId, name: request.name, mode: request.mode };
      this.heldLockSet.push(lock);
      // 2.1.11 the callback is invoked in the requesting agent.
      if (!request.grantedNow) this.deliver(request.handle, { type: 'granted', id: request.id });
    }
  }

  deliver(handle, event) {
    if (handle === this.terminating) return;   // a terminating agent runs no more callbacks
    this.agents.get(handle)?.inbox.push(event);
  }

  takeEvents(handle) {
    const agent = this.agent(handle);
    const events = agent.inbox;
    agent.inbox = [];
    return events;
  }

  // 2.6 agent termination.
  closeAgent(handle) {
    this.agent(handle);
    this.terminating = handle;
    // 1. For each lock request request with agent equal to the terminating agent: abort it.
    // The spec names no ordered collection of lock requests here (they live in the per-name
    // queues), and the order is observable: each abort processes its queue, and the grants that
    // follow are appended to the held lock set. We take request order (a request's id), the one
    // order that does not depend on the queue map remembering every name ever used. Within one
    // queue it is the queue's order (a steal, the only request that is prepended, is granted at
    // once and is never pending). A request of this agent granted by an earlier abort is no
    // longer pending: it is released in step 2.
    const requests = [];
    for (const queue of this.queueMap.values()) for (const request of queue) if (request.handle === handle) requests.push(request);
    requests.sort((a, b) => a.id - b.id);
    for (const request of requests) {
      if (this.getQueue(request.name).includes(request)) this.abortRequest(request);
    }
    // 2. For each lock lock with agent equal to the terminating agent: release it, in the held
    // lock set's order (grant order across names).
    for (const lock of [...this.heldLockSet]) {
      if (lock.handle === handle) this.releaseLock(lock);
    }
    this.terminating = null;
    this.agents.delete(handle);
  }

  closeAgentsOfOwner(ownerTag) {
    const handles = [...this.agents].filter(([, a]) => a.ownerTag === ownerTag >>> 0).map(([h]) => h);
    for (const handle of handles) this.closeAgent(handle);
    return handles.length;
  }

  // 4.5 snapshot the lock state.
  snapshot() {
    // 2-3. pending: for each queue of the queue map's values, for each request of queue.
    const pending = [];
    for (const queue of this.queueMap.values()) {
      for (const request of queue) pending.push({ name: request.name, mode: request.mode, clientId: request.clientId });
    }
    // 4-5. held: for each lock of the held lock set.
    const held = this.heldLockSet.map((lock) => ({ name: lock.name, mode: lock.mode, clientId: lock.clientId }));
    return { held, pending };
  }

  // What the generator needs to pick meaningful operands.
  heldIdsOf(handle) { return this.heldLockSet.filter((l) => l.handle === handle).map((l) => l.id); }
  pendingIdsOf(handle) {
    const ids = [];
    for (const queue of this.queueMap.values()) for (const r of queue) if (r.handle === handle) ids.push(r.id);
    return ids;
  }
}

// The safety invariants every lock state must satisfy, whoever computed it:
// per name, either one exclusive holder and nothing else, or only shared holders; and no queue
// whose first request is grantable (a request must never wait for nothing).
export function checkInvariants({ held, pending }) {
  const problems = [];
  const byName = new Map();
  for (const lock of held) {
    if (!byName.has(lock.name)) byName.set(lock.name, []);
    byName.get(lock.name).push(lock.mode);
  }
  for (const [name, modes] of byName) {
    const exclusive = modes.filter((m) => m === 'exclusive').length;
    if (exclusive > 1 || (exclusive === 1 && modes.length > 1)) {
      problems.push(`name ${JSON.stringify(name)} held as [${modes.join(', ')}]`);
    }
  }
  const firstPending = new Map();
  for (const request of pending) if (!firstPending.has(request.name)) firstPending.set(request.name, request);
  for (const [name, request] of firstPending) {
    const modes = byName.get(name) ?? [];
    const grantable = request.mode === 'exclusive' ? modes.length === 0 : !modes.includes('exclusive');
    if (grantable) problems.push(`name ${JSON.stringify(name)}: first pending ${request.mode} request waits while held as [${modes.join(', ')}]`);
  }
  return problems;
}
