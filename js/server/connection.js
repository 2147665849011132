// One WebSocket connection to the lock server: the hello that opens or resumes a session, every
// later frame checked before it reaches the session, and the end of the connection (a close ends
// the session at once; a lost connection, found by the pings, leaves it to its grace).
import { C, CLOSE } from '../remote/protocol.js';

const WAITS = new Set(['wait', 'no-wait', 'preempt']);
const MODES = new Set(['exclusive', 'shared']);
const OPEN = 1; // WebSocket.OPEN

export class Connection {
  constructor(server, socket, space) {
    this.server = server;
    this.socket = socket;
    this.space = space;
    this.session = null;
    this.awaitingPong = false;
    this.dropped = false; // lost (pings) or superseded: its close must not end the session
    this.freezing = false; // the client said its page is being frozen (C.freezing) and sent nothing since
    this.adopting = false; // a session of a server process that died is being taken over (adopt)
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.pingSentAt = 0; // when the ping not answered yet went: a lost connection's grace counts from it
    socket.on('pong', () => { this.awaitingPong = false; });
    socket.on('close', () => this.onClose());
    socket.on('error', () => {}); // a 'close' follows
  }

  sendText(text) {
    if (this.socket.readyState === OPEN) this.socket.send(text);
  }

  /** Called by the server's ping timer: false once the previous ping went unanswered. */
  ping() {
    if (this.awaitingPong) {
      this.lost();
      return;
    }
    this.awaitingPong = true;
    this.pingSentAt = Date.now();
    try { this.socket.ping(); } catch { /* closing */ }
  }

  /**
   * No pong: the connection is gone without a close. The session waits for its grace, counted
   * from the ping that went unanswered (found one ping interval later): a client that went silent
   * keeps its locks about `grace` (the ping went after it stopped, or within a round trip before)
   * and loses them at most `grace` + one ping interval after it stopped.
   */
  lost() {
    this.dropped = true;
    this.socket.terminate();
    this.session?.detach(this, false, this.pingSentAt);
    this.server.connectionLost();
    this.server.connectionGone(this);
  }

  /** A resume on another connection took the session. */
  supersede() {
    this.dropped = true;
    this.session = null;
    this.socket.terminate();
  }

  /** Refuses this connection (docs/remote.md, "Close codes"): the session ends with it. */
  refuse(code, reason) {
    const session = this.session;
    this.dropped = true;
    this.session = null;
    try { this.socket.close(CLOSE[code], reason.slice(0, 120)); } catch { this.socket.terminate(); }
    session?.end('refused');
    this.server.connectionGone(this);
  }

  onClose() {
    this.server.connectionGone(this);
    if (this.dropped) return;
    // A page frozen since it said so: Chromium closes its socket (1001) as it thaws it, before the
    // page can run. Its session waits for its grace, as after a lost connection, for the resume.
    if (this.freezing && this.session !== null) {
      this.session.detach(this);
      return;
    }
    this.session?.end('closed');
  }

  onMessage(data, isBinary) {
    if (this.dropped) return;
    this.awaitingPong = false; // anything heard proves the connection
    let frame;
    try {
      if (isBinary) throw new Error('binary');
      frame = JSON.parse(data.toString());
    } catch {
      this.refuse('malformed', 'not a JSON text frame');
      return;
    }
    if (frame === null || typeof frame !== 'object' || typeof frame.t !== 'string') {
      this.refuse('malformed', 'a frame is an object with a type');
      return;
    }
    if (this.session === null) {
      if (!this.adopting) this.hello(frame);
      return;
    }
    const session = this.session;
    if (!seq(frame.a) || frame.a > session.sent) {
      this.refuse('malformed', 'bad acknowledgement');
      return;
    }
    session.acknowledged(frame.a);
    this.freezing = frame.t === C.freezing;
    if (frame.t === C.ack || frame.t === C.freezing) return;
    if (!seq(frame.s) || frame.s > session.received + 1) {
      this.refuse('malformed', 'bad sequence number');
      return;
    }
    if (frame.s <= session.received) return; // sent again after a resume: already acted on
    const problem = this.check(frame, session);
    if (problem !== null) {
      this.refuse(problem[0], problem[1]);
      return;
    }
    session.receive(frame);
    if ((frame.t === C.request || frame.t === C.query) && session.outstanding >= this.server.options.maxOutstanding) {
      // An honest burst gets a named refusal for the requests over the limit, never a lost connection.
      session.refuseOverLimit(frame.id);
      return;
    }
    switch (frame.t) {
      case C.request: session.request(frame.id, frame.name, frame.mode, frame.wait, undefined, frame.under, frame.reject === true); break;
      case C.release: session.release(frame.id); break;
      case C.abort: session.abort(frame.id); break;
      case C.query: session.query(frame.id); break;
      case C.observe: session.observe(frame.id); break;
      case C.unobserve: session.unobserve(frame.id); break;
    }
  }

  /** What is wrong with a frame, as [close code key, reason], or null. */
  check(frame, session) {
    if (!seq(frame.id)) return ['malformed', 'bad id'];
    if (frame.t === C.observe && session.outstanding >= this.server.options.maxOutstanding) return ['tooManyRequests', 'too many outstanding requests'];
    if (frame.t === C.request) {
      if (session.entries.has(frame.id)) return ['malformed', 'request id in use'];
      if (typeof frame.name !== 'string') return ['malformed', 'bad name'];
      if (frame.name.length > this.server.options.maxNameLength) return ['nameTooLong', 'lock name too long'];
      if (!MODES.has(frame.mode) || !WAITS.has(frame.wait)) return ['malformed', 'bad mode or wait'];
      if ((frame.under !== undefined && !seq(frame.under)) || (frame.reject !== undefined && frame.reject !== true)) return ['malformed', 'bad under or reject'];
      return null;
    }
    if (frame.t === C.release || frame.t === C.abort || frame.t === C.query || frame.t === C.observe || frame.t === C.unobserve) return null;
    return ['malformed', 'unknown frame type'];
  }

  /**
   * A resume of a session this process does not have, on a backend that keeps locks across server
   * processes ('machine'): the lock space may keep its client for a process that died (docs/remote.md,
   * "Server restarts"). Frames that come meanwhile wait (the client sends none before its welcome).
   */
  adopt(resume) {
    const problem = checkAccount(resume, this.server.options);
    if (problem !== null) {
      this.refuse(problem === 'too many' ? 'tooManyRequests' : 'malformed', `bad resume (${problem})`);
      return;
    }
    const session = this.server.newSession(this.space, resume);
    if (typeof session === 'string') {
      this.refuse(session, 'too many connections');
      return;
    }
    this.adopting = true;
    const { requests, queries, observers } = resume.state;
    session.adopt(requests, queries, observers).then(() => {
      this.adopting = false;
      if (this.dropped || this.socket.readyState !== OPEN) {
        session.detach(this, true); // closed meanwhile: the session waits for its grace
        return;
      }
      this.session = session;
      session.attach(this, resume.received, true);
    }, () => {
      this.adopting = false;
      session.end('refused');
      this.refuse('sessionGone', 'no such session (its grace ran out)');
    });
  }

  hello(frame) {
    if (frame.t !== C.hello || frame.v !== 1) {
      this.refuse('malformed', 'the first frame is a hello of protocol version 1');
      return;
    }
    const resume = frame.resume;
    if (resume !== undefined) {
      const session = this.server.findSession(resume?.session, resume?.secret, this.space);
      if (session === null && resume?.state !== undefined && this.server.mayAdopt(this.space)) {
        this.adopt(resume);
        return;
      }
      if (session === null || !seq(resume.received) || resume.received > session.sent) {
        this.refuse('sessionGone', 'no such session (its grace ran out)');
        return;
      }
      this.session = session;
      session.attach(this, resume.received, true);
      return;
    }
    let session;
    try {
      session = this.server.newSession(this.space);
    } catch (error) {
      // The backend could not take a client (a machine folder refused, etcd options): this
      // connection is closed with 1011 and the server says why; nothing else is affected.
      process.emitWarning(`weblocks-wasm lock server: a session could not start: ${error?.message ?? error}`, { code: 'WEBLOCKS_REMOTE_SESSION' });
      this.refuse('serverError', 'the lock server could not start a session');
      return;
    }
    if (typeof session === 'string') {
      this.refuse(session, 'too many connections');
      return;
    }
    this.session = session;
    session.attach(this, 0, false);
  }
}

const REQUEST_STATES = new Set(['held', 'releasing', 'pending', 'aborting']);

/** What is wrong with the client's account of a session to adopt (its resume's `state`), or null. */
function checkAccount(resume, options) {
  const state = resume.state;
  if (typeof resume.session !== 'string' || resume.session.length > 64 || typeof resume.secret !== 'string' || resume.secret.length > 64) return 'bad session';
  if (!seq(resume.received) || !seq(resume.sent)) return 'bad sequence numbers';
  if (state === null || typeof state !== 'object' || !Array.isArray(state.requests) || !Array.isArray(state.queries) || !Array.isArray(state.observers)) return 'bad state';
  if (state.requests.length + state.queries.length + state.observers.length > options.maxOutstanding) return 'too many';
  const ids = new Set();
  for (const id of [...state.queries, ...state.observers]) {
    if (!seq(id) || ids.has(id)) return 'bad id';
    ids.add(id);
  }
  for (const r of state.requests) {
    if (r === null || typeof r !== 'object' || !seq(r.id) || ids.has(r.id) || r.id === 0) return 'bad id';
    ids.add(r.id);
    if (typeof r.name !== 'string' || r.name.length > options.maxNameLength) return 'bad name';
    if (!MODES.has(r.mode) || !WAITS.has(r.wait) || !REQUEST_STATES.has(r.state)) return 'bad request';
  }
  return null;
}

function seq(value) {
  return Number.isSafeInteger(value) && value >= 0;
}
