// The hub's transport: connections over MessagePorts (a SharedWorker's, a machine hub's socket
// ports: js/machine/socket-port.js), what comes in on them (validated: validate-client.js; charged or
// refused: quota.js; filed in a fair turn: fair-inbox.js) and what goes out (batched: sendTo). It
// delivers each message to `handle` and reports a port gone to `end`: hub.js says what they do.
import { PROTOCOL_VERSION, LIMITS, FLOW, C, H, FRAME_TYPES } from './protocol.js';
import { FairInbox } from './fair-inbox.js';
import { requestCost, MESSAGE_COST } from './quota.js';
import { validateClientMessage } from './validate-client.js';
import { Connection, ENDING } from './connection.js';
import { FrameConnection } from './frame-connection.js';
import { LockCore } from './lock-core.js';
/** @import { UnbatchedHubMessage } from './protocol.js' */
/** @import { HubConnection, Ending } from './connection.js' */

// A microtask without queueMicrotask's cost: Node wraps each queueMicrotask callback in an
// AsyncResource (7% of the machine hub's busy time, measured); a reaction to a resolved promise
// lands in the same FIFO microtask queue, so the order is the same.
const RESOLVED = Promise.resolve();

export class HubTransport extends LockCore {
  /**
   * @param engine  an Engine (js/engine)
   * @param {object} [options] the Hub's (hub.js); here: fairness (fair-inbox.js)
   */
  constructor(engine, options = {}) {
    super(engine, options);
    this.run = null;          // consecutive messages to one batching connection, not posted yet (sendTo)
    this.flushRunTask = () => this.flushRun();
    this.fileTask = (conn, item) => this.inbox.add(conn, item);
    this.handleTask = (conn, item) => this.handle(conn, item);
    this.inbox = new FairInbox((conn, item) => this.handle(conn, item), {
      now: this.now, maxQueued: FLOW.MAX_QUEUED, ...options.fairness,
    });
  }

  // What the transport hands up (hub.js defines them).

  /** Handles one filed message, in its connection's turn. @param {HubConnection} conn */
  handle(conn, item) {} // eslint-disable-line no-unused-vars

  /** Ends `conn` (hub.js: the one way a connection ends). @param {HubConnection} conn @param {Ending} how */
  end(conn, how, evidence = {}) {} // eslint-disable-line no-unused-vars

  /** A new port: a context that constructed the SharedWorker, or one a context adopted for its worker. */
  connect(port, parent = null) {
    const conn = /** @type {HubConnection} */ (new Connection(this, port, parent));
    this.connections.add(conn);
    if (parent !== null) parent.children.add(conn);
    port.onmessage = (event) => this.receive(conn, event);
    port.onmessageerror = () => this.reject(conn, 'a message could not be deserialized');
    // Behind a flag in Chromium today; where it fires, a closed port is a clean exit.
    // (Not after the hub closed it itself for volume: cut.)
    port.addEventListener?.('close', () => { if (!conn.cut) this.end(conn, ENDING.gone); });
    port.start?.();
    // Every connection learns first which hub serves it: a port the browser handed to a relaunched
    // hub (WebKit delivers surviving ports to a new instance as fresh connects) hears a new id.
    conn.send({ t: H.hub, hubId: this.hubId });
    return conn;
  }


  // ---- sending ----

  /**
   * A page reads each message in a task of its own, between the tasks of its own load: measured in
   * Chromium, a second tab's hub, welcome and grant, posted within 2 ms, were read 10-16 ms apart.
   * So consecutive messages to one connection that asked (its hello's batch: true) go as one
   * H.batch, posted when a message to another connection follows, before any other post or close,
   * or at the end of the task. A context's first requests come inside its hello (`then`), so its
   * welcome and their grants go as one. Every message is still posted in the order it was sent,
   * across connections too: a steal's victims are told before its thief, whatever point the hub's
   * process dies at.
   * @param {HubConnection} conn
   * @param {UnbatchedHubMessage} message
   */
  sendTo(conn, message) {
    if (this.run !== null && this.run.conn === conn) {
      this.run.messages.push(message);
      return undefined;
    }
    this.flushRun();
    if (!conn.batching) return conn.post(message);
    this.run = { conn, messages: [message] };
    RESOLVED.then(this.flushRunTask);
    return undefined;
  }

  /** Posts the batch being gathered, if any. */
  flushRun() {
    const run = this.run;
    if (run === null) return;
    this.run = null;
    run.conn.post(run.messages.length === 1 ? run.messages[0] : { t: H.batch, m: run.messages });
  }

  // ---- receiving ----

  /**
   * A message arrived. What can never wait is done here (probes, pongs, releases: an honest probe or
   * release is never stuck behind another connection's backlog; a release waits only for its own
   * connection's earlier messages); what would make the hub keep
   * memory is charged to the connection or refused (quota.js); the rest is filed in the
   * connection's inbox and handled in its fair turn (fair-inbox.js).
   * @param {HubConnection} conn
   */
  receive(conn, event) {
    if (conn.gone || conn.cut) return undefined;
    conn.lastSeen = this.now();
    const message = event.data;
    const problem = validateClientMessage(message);
    if (problem !== null) {
      // A hello refused says so: its context would otherwise wait for a welcome for ever.
      if (message?.t === C.hello && conn.client === null) {
        conn.send({ t: H.rejected, v: PROTOCOL_VERSION, reason: 'hello', message: `The lock hub refused this context's hello (${problem}).` });
      }
      return this.reject(conn, problem, message);
    }
    return this.take(conn, message, event.ports ?? null, this.fileTask);
  }

  /**
   * A valid message: done at once, refused, or charged and handed to `file` ((conn, item) => void:
   * the inbox, or `handle` for what a hello carried). `ports`: what came with it, or null.
   * @param {HubConnection} conn
   */
  take(conn, message, ports, file) {
    if (message.t === C.pong) return undefined;
    // A message for one of this connection's frames is filed in the connection's own inbox (one
    // order for all its frames) and charged to the frame.
    let frame = null;
    if (message.as !== undefined && FRAME_TYPES.has(message.t) && conn.client !== null) {
      frame = this.frameOf(conn, message.as, message.t === C.request || message.t === C.adopt);
      if (frame === null) return this.noFrame(conn, message, ports);
    }
    const payer = frame ?? conn;
    if (message.t === C.probe) {
      // A hello still waiting in this connection's inbox counts as registered: it will be.
      if (conn.client === null && !conn.dead && conn.helloQueued === 0) return this.unregistered(conn, message, { ports });
      return conn.send({ t: H.probed, call: message.call, hubId: this.hubId });
    }
    if (message.t === C.release && conn.client !== null) {
      // At once, unless this connection's earlier messages still wait in its inbox: then after
      // them, as its context made them (spec: the lock task queue runs its steps in order). A
      // release that overtook the context's own requests made inside its callback gave the lock
      // to the one it should wait for first (WPT mode-exclusive "distinct resources", WebKit:
      // issue 46). A full inbox is a flood, cut below: its release is handled now.
      if (this.inbox.pending(conn) === 0 || this.inbox.full(conn)) return this.handle(conn, { message, ports: null, cost: 0, frame });
      file(conn, { message, ports: null, cost: 0, frame });
      return undefined;
    }
    if (this.inbox.full(conn)) {
      for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
      return this.cut(conn);
    }
    if (message.t === C.hello) conn.helloQueued++;
    let cost = MESSAGE_COST;
    if (message.t === C.request) {
      cost = requestCost(message.name);
      if (!this.quota.fits(payer, cost, this.connections.size)) {
        return conn.send({ t: H.failed, token: message.token, name: 'QuotaExceededError', message: this.quotaMessage(payer) });
      }
    } else if (message.t === C.query) {
      if (conn.queries >= LIMITS.queriesPerClient) {
        return conn.send({ t: H.queryFailed, call: message.call, name: 'QuotaExceededError', message: `More than ${LIMITS.queriesPerClient} query() calls of this context are waiting for the lock hub.` });
      }
      conn.queries++;
    } else if (message.t === C.abort && !this.quota.fits(payer, cost, this.connections.size)) {
      return conn.send({ t: H.aborted, token: message.token, removed: false });
    }
    this.quota.charge(payer, cost);
    file(conn, { message, ports, cost, frame });
    return undefined;
  }

  /**
   * The frame `as` of `conn` (protocol 11): a client of its own, made on its first request or
   * worker (`create`). Null when there is none, or none may be made: this hub serves no frames
   * (a machine hub), the connection speaks for as many as it may, or the clientId is taken.
   * @param {HubConnection} conn
   * @returns {HubConnection | null}
   */
  frameOf(conn, as, create) {
    const known = conn.frames?.get(as);
    if (known !== undefined) return known;
    if (!create || !this.servesFrames() || conn.frame) return null;
    if ((conn.frames?.size ?? 0) >= LIMITS.framesPerConnection || this.clientIds.has(as)) return null;
    const frame = /** @type {HubConnection} */ (new FrameConnection(this, conn));
    conn.frames ??= new Map();
    conn.frames.set(as, frame);
    conn.children.add(frame);
    this.connections.add(frame);
    this.openClient(frame, as);
    return frame;
  }

  /** Whether contexts may speak for their same-origin frames on their own connection (a machine hub: no). */
  servesFrames() { return true; }

  /** A message for a frame the hub has not (or may not have): answered so that nothing waits for ever. @param {HubConnection} conn */
  noFrame(conn, message, ports) {
    for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
    if (message.t === C.request) {
      const why = this.servesFrames() ? `this context speaks for ${LIMITS.framesPerConnection} frames already, or the frame's clientId is in use` : 'this lock hub serves no frames';
      return conn.send({ t: H.failed, token: message.token, name: 'NotSupportedError', message: `The lock hub refused a frame's request: ${why}.` });
    }
    if (message.t === C.abort) return conn.send({ t: H.aborted, token: message.token, removed: false });
    if (message.t === C.release) return this.reject(conn, 'release for an unknown frame', message);
    return undefined; // ended, left, adopt (its port closed): nothing of that frame is kept here
  }


  /**
   * A connection whose inbox is full (fair-inbox.js) ignores flow control and sends faster than its
   * share of the hub serves it. The hub stops reading it: its port is closed, which also makes the
   * browser drop the backlog it still had for that port (behind which every other tab's messages
   * would wait), and what waits in its inbox is dropped unhandled. It keeps its registration, every
   * lock it holds and every request the hub accepted (volume is no evidence of death): its
   * liveness is its sentinel's, and it may resume on a new port with its key (resume.js: what it
   * lists and the hub never got is requested then). It is told why first.
   * @param {HubConnection} conn
   */
  cut(conn) {
    const waiting = this.inbox.pending(conn);
    const releases = [];
    for (const { message, ports, cost, frame = null } of this.inbox.drop(conn)) {
      // A release filed behind its context's earlier messages (take) is still done: the context
      // has forgotten that lock, and its resume would not name it.
      if (message.t === C.release) releases.push([frame ?? conn, message.token]);
      this.quota.refund(frame ?? conn, cost);
      if (message.t === C.query) conn.queries--;
      if (message.t === C.hello) conn.helloQueued--;
      for (const port of ports ?? []) try { port.close(); } catch { /* gone */ }
    }
    for (const [owner, token] of releases) if (!owner.gone) this.release(owner, token);
    const message = `This context had ${waiting} messages waiting at the lock hub, as many as one context may (${this.inbox.maxQueued}): it sends faster than its share of the hub serves it, without flow control. The hub stopped reading this connection (its messages not yet handled are dropped); the locks it holds and the requests the hub accepted are kept, and a hello with its key on a new port resumes it.`;
    this.log('warn', `${conn.clientId ?? 'an unregistered client'} had ${waiting} messages waiting (the bound is ${this.inbox.maxQueued}): its port is closed, its locks and accepted requests are kept`);
    conn.send({ t: H.overloaded, waiting, max: this.inbox.maxQueued, message });
    this.flushRun();
    conn.cut = true;
    conn.port.onmessage = null;
    conn.port.onmessageerror = null;
    try { conn.port.close(); } catch { /* gone */ }
  }

  /** @param {HubConnection} conn */
  quotaMessage(conn) {
    return `This context's lock requests take more memory than the lock hub keeps for one context (${conn.bytes} of ${this.quota.connectionBytes} bytes, or an even share of ${this.quota.hubBytes} bytes for all contexts); release or abort some first.`;
  }


  /**
   * A message on a connection that never said hello to this hub. A client that believes it is
   * registered (its hub died and the browser handed its port to this one) must never go on
   * unanswered: it is told, with this hub's id, to say hello again (once per connection, and to
   * every probe). A bye from such a port (an identity check that is done) forgets it.
   * @param {HubConnection} conn
   */
  unregistered(conn, message, event) {
    for (const port of event.ports ?? []) try { port.close(); } catch { /* gone */ }
    if (message.t === C.bye) return this.end(conn, ENDING.gone);
    if (message.t === C.probe) return conn.send({ t: H.unregistered, hubId: this.hubId, call: message.call });
    if (message.t === C.pong) return undefined;
    if (!conn.toldUnregistered) {
      conn.toldUnregistered = true;
      conn.send({ t: H.unregistered, hubId: this.hubId, call: 0 });
    }
    return this.reject(conn, `${message.t} before hello`, message);
  }
}
