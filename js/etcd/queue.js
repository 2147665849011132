// The lock space in etcd: where a request's key lives, and which requests of a name's queue are
// held. Pure functions: the backend, its per-name mirrors and query() all decide with these.
//
// Layout, under the namespace (default "weblocks/"):
//   <ns>n/<encoded name>/x/<clientId>.<seq>   an exclusive request (value {"c":clientId,"m":"exclusive"})
//   <ns>n/<encoded name>/s/<clientId>.<seq>   a shared request
// A steal's key is an exclusive key whose value also has "p":1 (preempt): it stands at the head.
//   <ns>o/<clientId>/<leaseId>               this client's write log on that lease (etcd-backend.js,
//                                            once()): its version counts the client's writes
// Keys are created once (with the client's lease) and never modified, only deleted: the
// state of a name is the set of its keys, and each key's create revision is its place in the queue.

/**
 * A lock name as a key segment: injective, without "/" (so one name's prefix is never a
 * prefix of another's), readable for plain names. Works on UTF-16 code units, so names with
 * lone surrogates (a DOMString may have them) stay distinct.
 */
export function encodeName(name) {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if ((unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a)
      || unit === 0x2d || unit === 0x2e || unit === 0x5f || unit === 0x7e) {
      out += name[i];
    } else {
      out += '%' + unit.toString(16).padStart(4, '0');
    }
  }
  return out;
}

export function decodeName(segment) {
  return segment.replace(/%([0-9a-f]{4})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

/** The end of the key range that holds every key starting with `prefix` (etcd's prefix range). */
export function prefixEnd(prefix) {
  const bytes = Buffer.from(prefix);
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 0xff) {
      const end = bytes.subarray(0, i + 1);
      end[i] += 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

export class KeyLayout {
  constructor(namespace) {
    this.namespace = namespace;
    this.names = `${namespace}n/`;
  }

  /** Every key of one name's queue starts with this. */
  namePrefix(name) {
    return `${this.names}${encodeName(name)}/`;
  }

  /** etcd's range of every key of one name's queue. */
  nameRange(name) {
    const prefix = this.namePrefix(name);
    return { key: Buffer.from(prefix), range_end: prefixEnd(prefix) };
  }

  /** Every exclusive key (steals included) of one name starts with this. */
  exclusivePrefix(name) {
    return `${this.namePrefix(name)}x/`;
  }

  requestKey(name, mode, clientId, seq) {
    return `${this.namePrefix(name)}${mode === 'exclusive' ? 'x' : 's'}/${clientId}.${seq}`;
  }

  /** The key whose version counts this client's writes made with `leaseId` (it goes with the lease). */
  writeLogKey(clientId, leaseId) {
    return `${this.namespace}o/${clientId}/${leaseId}`;
  }

  /** The name a key belongs to (keys of the lock space only). */
  nameOfKey(key) {
    const rest = key.slice(this.names.length);
    return decodeName(rest.slice(0, rest.indexOf('/')));
  }
}

/** A request as read from etcd: { key, create, mode, clientId, preempt }. */
export function entryOf(kv) {
  const value = JSON.parse(kv.value.toString());
  return {
    key: kv.key.toString(),
    create: Number(kv.create_revision),
    mode: value.m,
    clientId: value.c,
    preempt: value.p === 1,
  };
}

/**
 * The queue's order (spec 4.1 step 2.4-2.5: a steal goes to the front, everything else in request
 * order): preempting keys first, latest first (normally there is only one: each steal deletes the
 * previous one), then by create revision.
 */
export function orderQueue(entries) {
  return entries.slice().sort((a, b) => {
    if (a.preempt !== b.preempt) return a.preempt ? -1 : 1;
    return a.preempt ? b.create - a.create : a.create - b.create;
  });
}

/**
 * How many requests at the head of an ordered queue are held (spec 4.4, "grantable"): an
 * exclusive request only when it is first; a shared one when every request before it is shared.
 * So the held requests are always a prefix of the queue.
 */
export function heldCount(ordered) {
  if (ordered.length === 0) return 0;
  if (ordered[0].mode === 'exclusive') return 1;
  let count = 0;
  while (count < ordered.length && ordered[count].mode === 'shared') count++;
  return count;
}
