// A TCP proxy on loopback in front of each etcd member, so a test can lose or delay etcd's answers
// after etcd has committed the request: requests always go through; what comes back can be
// thrown away (then the connection is cut, since its HTTP/2 state went with the lost bytes, and
// the client reconnects and retries), held back for a while, or, on one connection, stalled.
// etcd3 speaks gRPC over HTTP/2: from the client's side this is a partition after a commit, a
// slow network, or one member that stopped answering.
//
// To lose the answer of one call, the proxy reads HTTP/2 frame headers (9 bytes: length, type,
// flags, stream id), never their contents: each call is a new stream the client opens with a
// HEADERS frame; etcd answers a write after committing it, so the first frame it sends on that
// stream comes after the commit, and the proxy can throw it away there. Only unary calls (range,
// txn, lease grant: the client ends its side, END_STREAM, before any answer) are counted: a
// stream the client keeps open (a watch, a keep-alive) is not a write, and one opened late (a
// watch whose connection was still being set up) once took the lost answer in a write's place.
import net from 'node:net';

const CLIENT_PREFACE = 24; // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
const DATA = 0;
const HEADERS = 1;
const END_STREAM = 0x1;
// What etcd answers a call with (not flow control, which can come before the answer).
const isAnswer = (frame) => frame.type === HEADERS || frame.type === DATA;

/** Finds the frames in a byte stream cut into chunks: push(chunk) -> [{ at, type, flags, stream }]. */
function frameScanner(skip) {
  let header = Buffer.alloc(0);
  let payload = 0; // bytes of the current frame's payload still to come
  return (chunk) => {
    const frames = [];
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        skip -= n;
        i += n;
      } else if (payload > 0) {
        const n = Math.min(payload, chunk.length - i);
        payload -= n;
        i += n;
      } else {
        const n = Math.min(9 - header.length, chunk.length - i);
        const at = i - header.length; // where it began (below 0: in an earlier chunk)
        header = Buffer.concat([header, chunk.subarray(i, i + n)]);
        i += n;
        if (header.length === 9) {
          frames.push({ at, type: header[3], flags: header[4], stream: header.readUInt32BE(5) & 0x7fffffff });
          payload = header.readUIntBE(0, 3);
          header = Buffer.alloc(0);
        }
      }
    }
    return frames;
  };
}

export async function startFaultProxies(cluster) {
  const state = {
    losing: false,   // every connection's answers are thrown away
    delayMs: 0,      // every connection's answers are delivered this late
    stall: null,     // { ms, resolve }: the connection of the next call started gets no answers for ms
    target: null,    // { countdown, then, resolve }: the call whose answer is lost
    connections: new Set(),
    servers: [],
  };

  function proxyTo(member) {
    const server = net.createServer((client) => {
      const upstream = net.connect(member.clientPort, '127.0.0.1');
      // opening: streams the client opened that have had no answer yet and whose request is not complete
      const connection = { client, upstream, losing: state.losing, lost: 0, stalled: false, streams: 0, opening: new Set(), target: null, lastAt: 0 };
      const fromClient = frameScanner(CLIENT_PREFACE);
      const fromServer = frameScanner(0);
      state.connections.add(connection);
      const cut = () => {
        client.destroy();
        upstream.destroy();
        state.connections.delete(connection);
      };
      connection.cut = cut;
      const forward = (chunk) => {
        if (state.delayMs > 0 || connection.lastAt > Date.now()) {
          // Late, but in order (TCP never reorders): never before a chunk that came earlier.
          connection.lastAt = Math.max(Date.now() + state.delayMs, connection.lastAt);
          setTimeout(() => { if (!client.destroyed) client.write(chunk); }, connection.lastAt - Date.now());
        } else {
          client.write(chunk);
        }
      };
      client.on('error', cut).on('close', cut);
      upstream.on('error', cut).on('close', cut);
      client.on('data', (chunk) => {
        upstream.write(chunk);
        for (const frame of fromClient(chunk)) {
          if (frame.type === DATA && (frame.flags & END_STREAM) && connection.opening.delete(frame.stream)) {
            // A unary call: its whole request sent, nothing answered yet.
            if (state.target !== null && --state.target.countdown === 0) {
              connection.target = { stream: frame.stream, ...state.target };
              state.target = null;
            }
            continue;
          }
          if (frame.type !== HEADERS || frame.stream <= connection.streams) continue;
          connection.streams = frame.stream; // a new call
          connection.opening.add(frame.stream);
          if (state.stall !== null && !connection.losing) {
            const { ms, resolve } = state.stall;
            state.stall = null;
            connection.losing = true;
            connection.stalled = true;
            setTimeout(() => { cut(); resolve({ member: member.name }); }, ms);
          }
        }
      });
      upstream.on('data', (chunk) => {
        const frames = fromServer(chunk);
        // An answer before the request was complete: a stream (a watch, a keep-alive), never counted.
        for (const frame of frames) if (isAnswer(frame)) connection.opening.delete(frame.stream);
        const target = connection.target;
        if (target !== null && !connection.losing) {
          const frame = frames.find((f) => f.stream === target.stream && isAnswer(f));
          if (frame !== undefined) {
            // etcd answered (so committed) the call: forward what came before its answer, lose the rest.
            connection.target = null;
            forward(chunk.subarray(0, Math.max(0, frame.at)));
            connection.losing = true;
            connection.lost += chunk.length;
            if (target.then === 'cut') cut();
            else api.loseAnswers();
            target.resolve();
            return;
          }
        }
        if (connection.losing) {
          connection.lost += chunk.length;
        } else {
          forward(chunk);
        }
      });
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
      state.servers.push(server);
      resolve(`http://127.0.0.1:${server.address().port}`);
    }));
  }

  const hosts = [];
  for (const member of cluster.members) hosts.push(await proxyTo(member));
  const api = {
    hosts,
    /**
     * The answer of the `nth` unary call the clients send from now on (on any connection) is lost:
     * `then: 'cut'` cuts its connection there (the client retries at once on a new one);
     * `then: 'lose'` loses every answer from there on, until restore(). Resolves when it happened.
     */
    loseAnswerOf(nth, then) {
      return new Promise((resolve) => { state.target = { countdown: nth, then, resolve }; });
    },
    /** From now on every answer, on every connection (new ones too), is thrown away. */
    loseAnswers() {
      state.losing = true;
      for (const connection of state.connections) connection.losing = true;
    },
    /** Answers flow again; every connection that lost some is cut (its client reconnects and retries). */
    restore() {
      state.losing = false;
      state.delayMs = 0;
      for (const connection of [...state.connections]) {
        if (connection.stalled) continue;
        if (connection.losing && connection.lost > 0) connection.cut();
        else connection.losing = false;
      }
    },
    /** From now on every answer arrives `ms` late (in order); restore() ends it. */
    delayAnswers(ms) {
      state.delayMs = ms;
    },
    /**
     * The connection of the next call the clients start gets no answers for `ms`, then is cut; the other
     * connections are untouched. Resolves when the stall ends, with the member it was in front of.
     */
    stallNextConnection(ms) {
      return new Promise((resolve) => { state.stall = { ms, resolve }; });
    },
    async close() {
      for (const connection of [...state.connections]) connection.cut();
      await Promise.all(state.servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
  return api;
}
