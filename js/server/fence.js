// lockServer.fence(req): the check an app's own HTTP endpoint makes before it acts under a lock
// (docs/remote.md, "Fencing"). A ticket keeps the lock from passing on until done() or the
// server's ticketTimeout, whichever comes first.
import { HEADERS } from '../remote/protocol.js';

export class FenceError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'FenceError';
    this.status = status;
  }
}

/** The lock a request names in its headers (lockHeaders()), or a FenceError 400. */
export function lockOfRequest(req) {
  const headers = req?.headers;
  if (headers === undefined || headers === null) throw new FenceError(400, 'fence(req): req has no headers.');
  const rawName = headers[HEADERS.name];
  const mode = headers[HEADERS.mode];
  const rawToken = headers[HEADERS.fencingToken];
  if (typeof rawName !== 'string' || typeof rawToken !== 'string') {
    throw new FenceError(400, `fence(req): the request has no ${HEADERS.name} and ${HEADERS.fencingToken} headers (lockHeaders(lock)).`);
  }
  let name;
  try {
    name = decodeURIComponent(rawName);
  } catch {
    throw new FenceError(400, `fence(req): the ${HEADERS.name} header is not URI-encoded.`);
  }
  if (!/^[1-9][0-9]{0,15}$/.test(rawToken) || !Number.isSafeInteger(Number(rawToken))) {
    throw new FenceError(400, `fence(req): the ${HEADERS.fencingToken} header is not a fencing token.`);
  }
  if (mode !== undefined && mode !== 'exclusive' && mode !== 'shared') {
    throw new FenceError(400, `fence(req): the ${HEADERS.mode} header is not a lock mode.`);
  }
  return { name, mode, fencingToken: Number(rawToken) };
}

/** Opens a ticket on `grant` (held now). */
export function openTicket(space, grant, ticketTimeout) {
  let close;
  const closed = new Promise((resolve) => { close = resolve; });
  const ticket = {
    name: grant.name, mode: grant.mode, grant, closed, open: true,
    done() {
      if (!ticket.open) return;
      ticket.open = false;
      clearTimeout(timer);
      grant.tickets.delete(ticket);
      space.closeTicket(ticket);
      close();
    },
  };
  const timer = setTimeout(ticket.done, ticketTimeout);
  timer.unref?.();
  grant.tickets.add(ticket);
  space.openTicket(ticket);
  return {
    name: grant.name, mode: grant.mode, fencingToken: grant.fencingToken, space: space.key,
    done: ticket.done,
  };
}
