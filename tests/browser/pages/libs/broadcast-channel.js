// broadcast-channel's createLeaderElection, as published (bundled from node_modules by
// scripts/build-test-libs.mjs), driven by libs-broadcast-channel.spec.js. The library takes its
// Web Locks elector when navigator.locks exists (here: the polyfill's): one long-held lock per
// channel, requested with an AbortSignal that die() aborts with a reason of its own.
import { BroadcastChannel, createLeaderElection } from '/build/libs/broadcast-channel.js';
import { clock, probeNative } from './common.js';

let channel = null;
let elector = null;
let becameLeaderAt = null;
let electionError = null;
let onLeader;
const leadership = new Promise((resolve) => { onLeader = resolve; });

window.lib = {
  ready: true,
  probeNative,
  /** Joins the election on channel `name`; returns the lock name the library uses. */
  join(name) {
    channel = new BroadcastChannel(name);
    elector = createLeaderElection(channel);
    elector.awaitLeadership().then(() => { becameLeaderAt = clock(); onLeader(becameLeaderAt); }, (error) => { electionError = String(error); });
    return elector.lN;
  },
  /** Resolves when this tab is elected (the library's awaitLeadership()), with the time. */
  leadership: () => leadership,
  state: () => ({ isLeader: elector.isLeader, isDead: elector.isDead, becameLeaderAt, electionError }),
  hasLeader: () => elector.hasLeader(),
  /** The library's own way out: closing the channel makes the elector die() (aborts its request). */
  async leave() { const at = clock(); await channel.close(); return at; },
};
