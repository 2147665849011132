// Bounded memory per connection, in bytes. What a connection makes the hub keep (each request it
// has outstanding, its name included, and each message of its own waiting to be handled) is
// charged to it when it arrives and refunded when the hub lets go of it. A request that would take
// a connection over its share is refused with a QuotaExceededError at once, before the hub keeps
// anything of it: the other connections are not disturbed. Limits: LIMITS in protocol.js.
import { LIMITS } from './protocol.js';

/** What the hub keeps for one outstanding request: its record, its engine entry and its name twice. */
export function requestCost(name) {
  return LIMITS.requestOverhead + 4 * name.length;
}

/** A queued message that is not a request (abort, query, hello, ...): its slot in the inbox. */
export const MESSAGE_COST = 64;

export class Quota {
  constructor(limits = LIMITS) {
    this.connectionBytes = limits.connectionBytes;
    this.hubBytes = limits.hubBytes;
    this.total = 0; // bytes charged to every connection together
  }

  /**
   * Whether `conn` may take `cost` more bytes: never beyond its own cap; and once the hub as a
   * whole is full, only while it holds less than an even share of the hub among `connections`
   * (so a connection that keeps little is still served when others filled the hub).
   */
  fits(conn, cost, connections) {
    const after = conn.bytes + cost;
    if (after > this.connectionBytes) return false;
    if (this.total + cost > this.hubBytes && after > this.hubBytes / Math.max(1, connections)) return false;
    return true;
  }

  charge(conn, cost) {
    conn.bytes += cost;
    this.total += cost;
  }

  refund(conn, cost) {
    conn.bytes -= cost;
    this.total -= cost;
  }

  /** The connection is closed: everything charged to it is given back. */
  refundAll(conn) {
    this.total -= conn.bytes;
    conn.bytes = 0;
  }
}
