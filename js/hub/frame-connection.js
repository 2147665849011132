// A same-origin frame that speaks through its embedder's connection (protocol 11, `as`): a client
// of its own at the hub (its own engine client, clientId, tokens and workers), with no port of its
// own. It shares its embedder's event loop, so it lives while the embedder does: it is never
// pinged nor judged by silence (hub.js tick), it goes with its embedder (close), or alone when its
// embedder says it left (C.left). Messages to it go on the embedder's port, after the embedder's
// earlier ones; none but token answers are ever sent to it (its embedder answers for the rest).
import { Connection } from './connection.js';
/** @import { HubMessage, UnbatchedHubMessage } from './protocol.js' */

export class FrameConnection extends Connection {
  /** @param {import('./connection.js').Connection} embedder */
  constructor(hub, embedder) {
    super(hub, null, embedder);
    this.frame = true;
  }

  // On the embedder's port, in the embedder's batches: what the hub tells a frame names its tokens,
  // which are the embedder's (one counter for all its frames).
  /** @param {UnbatchedHubMessage} message */
  send(message) {
    this.hub.sendTo(this.parent, message);
  }

  /** @param {HubMessage} message */
  post(message) {
    this.parent.post(message);
  }

  /** @param {HubMessage} message */
  postNow(message) {
    this.parent.postNow(message);
  }
}
