// A context the hub already serves says hello on a new port: it decided its hub was lost (it heard
// nothing for a while: a flood, a busy machine) and reconnected to the same, live hub. Its hello
// carries the key of its live connection (a secret: query() shows clientIds, never keys), so the new
// port takes that connection over: the same engine client, so every lock it holds stays held and
// every request keeps its place. Answering its held locks as stolen would tell a holder whose
// callback still runs that it lost the lock, and grant it to the next waiter while it runs.
import { PROTOCOL_VERSION, H } from './protocol.js';
import { requestCost } from './quota.js';
import { Session } from './session.js';
import { ENDING } from './connection.js';

import { PENDING, HELD, DEFERRED } from './lock-core.js';

/**
 * `conn` (new port) takes over `old` (same clientId and key); `m` is its hello.
 * @param hub
 * @param {import('./connection.js').HubConnection} conn
 */
export function resume(hub, conn, old, m) {
  // What the old port delivered and the hub has not handled yet was sent before this hello.
  for (const item of hub.inbox.drop(old)) hub.handle(old, item);
  if (old.client === null) return hub.hello(conn, m); // handling it closed the old connection (bye)

  moveSession(hub, old, conn);
  conn.attempt = m.attempt ?? 0;
  hub.resumed(conn, old, m);
  hub.log('info', `${conn.clientId} reconnected to this hub: its locks and requests are kept`);

  // Reconcile with what the context still has: its list is the truth about what it still wants.
  // Each entry is its own or one of its frames' (`as`, protocol 11), reconciled with that one's tokens.
  /** @type {Map<import('./connection.js').HubConnection, Set<number>>} */
  const listed = new Map([[conn, new Set()]]);
  for (const frame of conn.frames?.values() ?? []) listed.set(frame, new Set());
  /** @type {import('./protocol.js').Reclaimed[]} */
  const reclaimed = [];
  const grantedAgain = [];
  const submitAfterWelcome = []; // (a grant must come after the welcome: hub-handshake.js hello)
  for (const entry of m.reclaim) {
    const owner = entry.as === undefined ? conn : hub.frameOf(conn, entry.as, true);
    if (owner === null) { reclaimed.push(entry.held ? 'stolen' : 'queued'); continue; }
    if (!listed.has(owner)) listed.set(owner, new Set());
    listed.get(owner).add(entry.token);
    owner.maxToken = Math.max(owner.maxToken, entry.token);
    const record = owner.tokens.get(entry.token);
    if (entry.held) {
      // Held here too: kept. Not held here: it was stolen or released meanwhile (the news went to the old port).
      if (record !== undefined && record.state === HELD) reclaimed.push('held');
      else { reclaimed.push('stolen'); if (record !== undefined) listed.get(owner).delete(entry.token); }
    } else if (record !== undefined) {
      reclaimed.push('queued');
      if (record.state === HELD) grantedAgain.push([owner, entry.token]); // its grant went to the old port
    } else {
      // Sent on the old port and lost with it: a new request now.
      reclaimed.push('queued');
      const cost = requestCost(entry.name);
      hub.quota.charge(owner, cost);
      owner.tokens.set(entry.token, { id: 0, state: DEFERRED, entry, cost });
      if (hub.holdingBack()) hub.deferred.push([owner, entry.token]);
      else submitAfterWelcome.push([owner, entry.token]);
    }
  }
  // What the hub keeps for it but the context no longer has (released, aborted, or an ifAvailable
  // answered while the news was lost): let go.
  for (const [owner, kept] of listed) {
    for (const [token, record] of [...owner.tokens]) {
      if (kept.has(token)) continue;
      hub.forgetToken(owner, token, record);
      if (record.state === HELD) hub.engine.release(owner.client, record.id);
      else if (record.state === PENDING) hub.engine.abort(owner.client, record.id);
      else {
        hub.unqueue(owner, token); // held back, or re-registered in the reclaim window
      }
    }
  }
  // A fresh hello (no lost hub, nothing listed: hub-link.js freshHello; the context's other hellos
  // without a lost hub follow a bye or its death, which ended its session) comes from a context that
  // never heard this hub's welcome (a hub deaf while the tab it runs in is busy, WebKit; a slow
  // machine hub): it counts nothing as sent and asks for everything again after this hello, under
  // the same tokens. What its earlier port registered was let go just above; its tokens start
  // over, so that the requests sent again are taken as new rather than refused as reused (which
  // left them waiting for ever, the lock free).
  if (m.lostHub === null && m.reclaim.length === 0) for (const owner of listed.keys()) owner.maxToken = 0;
  conn.send({ t: H.welcome, v: PROTOCOL_VERSION, hubId: hub.hubId, clientId: conn.clientId, reclaimed, ...hub.resumeDetails(conn, m) });
  for (const [owner, token] of grantedAgain) hub.sendGrant(owner, token);
  for (const [owner, token] of submitAfterWelcome) hub.submit(owner, token);
  hub.deliverEvents();
  return undefined;
}

/**
 * The session of `from` (its engine client, tokens, doorbell, workers, frames) goes on on `to`; what
 * belongs to `from`'s port ends with it (the context asks for its observers again on the new one).
 * @param hub
 * @param {import('./connection.js').HubConnection} from
 * @param {import('./connection.js').HubConnection} to
 */
export function moveSession(hub, from, to) {
  const ownChildren = to.children; // (workers of a context that said bye on this port before, if any)
  to.session = from.session;
  from.session = new Session();
  for (const child of ownChildren) to.children.add(child);
  to.dead = false;
  to.bytes += from.bytes;          // the hub's total is unchanged: the same bytes, another owner
  from.bytes = 0;
  for (const child of to.children) child.parent = to; // (a frame's port is its embedder's: now this one)
  const retarget = (list) => { for (const entry of list) if (entry[0] === from) entry[0] = to; };
  retarget(hub.deferred);
  retarget(hub.window.pending);
  hub.end(from, ENDING.moved);
  hub.clientIds.set(to.clientId, to);
}
