// The hub's journal: who holds and who waits for what, in a file of the lock space's private
// folder that outlives the hub's process. A hub writes each change before anyone hears of it (a
// grant before the grant message, a release before the grant it allows), so the next hub, started
// after this one died at any point, knows every lock a client may believe it holds, and each
// client's process (process-proof.js): it keeps the locks of those that live, however long they
// are paused, and gives those of the dead to their waiters at once. The fencing token counter is
// in it too, so tokens go on growing across hubs.
//
// One JSON array per line (a hub killed mid-write leaves at most a torn last line, skipped):
//   ["f", fence]                                   the highest fencing token given so far
//   ["c", no, clientId, keyHash, pid, tid, start, lease]  a client registered (no: its number in this
//                                                  file; lease: ms its locks outlive its thread, 0 if none)
//   ["g", no, token, fence, mode, name]            its request `token` is held, with that fencing token
//   ["q", no, token, mode, name]                   its request `token` waits (in the order of these lines)
//   ["r", no, token]                               its request `token` is no more (released, stolen, aborted)
//   ["x", no]                                      the client is closed: nothing of it is left
// Writes go to the page cache (no fsync): the journal outlives the hub's process, and a machine
// that crashes takes every client with it. Lines wait in memory until flush(), which the hub calls
// before it writes anything to any client (socket-port.js Outbox.beforeWrite): one write per turn,
// and nobody hears of what is not written. The file is grown ahead in zeroed chunks and written in
// place, never appended to: a write that grows a file changes its size, which a journaling file
// system (ext4) records in its own journal each time (measured: a relay between two processes that
// appended a line per message fell from about 22,000 to 4,000-11,000 messages/s; writing in place,
// the hub's cost of a line is that of a copy to the page cache). The zeroed tail reads as one line
// that is not JSON, skipped like a torn one. A write that fails stops the hub (onFailure) before
// anyone is told of what it could not record.
import { fs } from '../node/builtin-fs.js';

// Rewritten as a snapshot of the hub's state when it grows past this.
const COMPACT_AFTER_BYTES = 4 << 20;
// The file grows ahead by this much (zeroed), so that lines are written within its size.
const GROW_BYTES = 256 << 10;
const ZEROS = Buffer.alloc(GROW_BYTES);

export class Journal {
  /** @param file the journal's path; onFailure(error): a write failed (the hub must stop) */
  constructor(file, onFailure) {
    this.file = file;
    this.onFailure = onFailure;
    this.fd = -1;
    this.bytes = 0;   // where the next line goes (the lines' end)
    this.size = 0;    // the file's size: lines, then zeros
    this.lines = [];  // appended, not written yet (flush)
  }

  /**
   * What the journal says: { fence, clients: [{ clientId, keyHash, proc, entries }] }, each entry
   * { token, name, mode, held, fence, order } (order: the line that put it there).
   */
  read() {
    let text = '';
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    let fence = 0;
    const clients = new Map(); // no -> client
    let order = 0;
    for (const line of text.split('\n')) {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // the torn last line of a hub killed while writing it (or an empty one)
      }
      if (!Array.isArray(entry)) continue;
      const [kind, no] = entry;
      order++;
      if (kind === 'f') fence = Math.max(fence, Number(no) || 0);
      else if (kind === 'c') {
        const [, , clientId, keyHash, pid, tid, start, lease] = entry;
        clients.set(no, { clientId, keyHash, proc: { pid, tid, start }, lease: Number.isSafeInteger(lease) ? lease : 0, entries: new Map() });
      } else if (kind === 'x') clients.delete(no);
      else {
        const client = clients.get(no);
        if (client === undefined) continue;
        if (kind === 'g') {
          const [, , token, given, mode, name] = entry;
          fence = Math.max(fence, given);
          // (held entries are ordered by their grants: of two that conflict, the later was never sent)
          client.entries.set(token, { token, name, mode, held: true, fence: given, order });
        } else if (kind === 'q') {
          const [, , token, mode, name] = entry;
          client.entries.set(token, { token, name, mode, held: false, fence: 0, order });
        } else if (kind === 'r') client.entries.delete(entry[2]);
      }
    }
    return {
      fence,
      clients: [...clients.values()].map((client) => ({ ...client, entries: [...client.entries.values()] })),
    };
  }

  /**
   * Replaces the journal with `lines` (a snapshot of the hub's state: snapshot()) and appends
   * from then on. The new file is written aside and renamed over the old one: a hub killed
   * meanwhile leaves the old journal whole.
   */
  rewrite(lines) {
    this.flush(); // (into the file being replaced: the snapshot has it all)
    this.lines = [];
    const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const aside = `${this.file}.${process.pid}`;
    fs.writeFileSync(aside, text, { mode: 0o600 });
    fs.renameSync(aside, this.file);
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = fs.openSync(this.file, 'r+', 0o600);
    this.bytes = Buffer.byteLength(text);
    this.size = this.bytes;
  }

  /** Rewrites the journal from `snapshot()` once appends made it large. */
  compactIfLarge(snapshot) {
    if (this.bytes > COMPACT_AFTER_BYTES) {
      try {
        this.rewrite(snapshot());
      } catch (error) {
        this.onFailure(error);
      }
    }
  }

  append(line) {
    this.lines.push(JSON.stringify(line));
  }

  /** Writes the lines appended since the last flush (before anyone hears of them). */
  flush() {
    if (this.lines.length === 0 || this.fd === -1) return;
    const text = `${this.lines.join('\n')}\n`;
    this.lines = [];
    try {
      const length = Buffer.byteLength(text);
      while (this.bytes + length > this.size) this.size += fs.writeSync(this.fd, ZEROS, 0, GROW_BYTES, this.size);
      this.bytes += fs.writeSync(this.fd, text, this.bytes);
    } catch (error) {
      this.onFailure(error);
    }
  }

  client(no, clientId, keyHash, { pid, tid, start }, lease = 0) { this.append(['c', no, clientId, keyHash, pid, tid, start, lease]); }

  held(no, token, fence, mode, name) { this.append(['g', no, token, fence, mode, name]); }

  queued(no, token, mode, name) { this.append(['q', no, token, mode, name]); }

  dropped(no, token) { this.append(['r', no, token]); }

  closed(no) { this.append(['x', no]); }

  close() {
    this.flush();
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }
}
