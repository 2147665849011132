// Types of "./server": the lock server, mounted on the app's own HTTP server (Node 20+, needs the
// `ws` package). See docs/remote.md.
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { LockManagerSnapshot, ObserveLocksCallback, ObserveLocksOptions } from './index.js';

export interface LockServerOptions {
  /**
   * The space key of an upgrade request (and of a fence() request): a string or number; clients of
   * different keys never see or affect each other's locks. null/undefined refuses with 401, false
   * (or a throw) with 403.
   */
  authorize(req: IncomingMessage): string | number | null | undefined | false | Promise<string | number | null | undefined | false>;
  /**
   * Where the locks live: 'process' (default), one engine per space key in this process; 'machine', each space key a
   * machine lock space, shared by every lock server process on this host; { etcd }, each space key an etcd lock space
   * (under `namespace`), shared by lock servers on any machines.
   */
  backend?: 'process' | 'machine' | { etcd: { hosts: string[] | string; namespace?: string; leaseTtl?: number; keepAliveInterval?: number; callTimeout?: number; etcd3Options?: Record<string, unknown> } };
  /** For backend 'machine': the machine lock space folder (default as weblocks-wasm/machine's). */
  machineFolder?: string;
  /** ms between the server's WebSocket pings (default 5000); a ping unanswered by the next one loses the connection. */
  pingInterval?: number;
  /**
   * ms a lost connection's session keeps its locks and queue places for a resume (default 15000), counted from the
   * ping it did not answer; with backend 'machine', also how long a dead server process's sessions are kept for the
   * server process their clients reconnect to (docs/remote.md, "Server restarts").
   */
  grace?: number;
  /** Allowed Origin values of browser upgrades (default: the request's own host only). */
  origins?: string[] | ((origin: string, req: IncomingMessage) => boolean);
  /** ms a fence() ticket can keep its lock past its holder's release (default 30000). */
  ticketTimeout?: number;
  /** Longest lock name, in UTF-16 code units (default 1024). */
  maxNameLength?: number;
  /** Largest client frame, in bytes (default 16384). */
  maxFrameBytes?: number;
  /** Requests, queries and observers a connection may have open at once (default 1024): requests and queries over it reject with a QuotaExceededError. */
  maxOutstanding?: number;
  /** Frames a client may leave unacknowledged (default 8192). */
  maxUnacked?: number;
  /** Sessions per space key (default 256). */
  maxConnectionsPerSpace?: number;
  /** Sessions in all (default 10000). */
  maxConnections?: number;
}

/** What fence(req) resolves to: the lock does not pass on until done() (or ticketTimeout). */
export interface FenceTicket {
  readonly name: string;
  readonly mode: 'exclusive' | 'shared';
  readonly fencingToken: number;
  readonly space: string;
  done(): void;
}

/** fence(req)'s rejection: status 400 (headers absent or malformed), 401/403 (not authorized), 409 (not held now). */
export interface FenceError extends Error {
  readonly status: 400 | 401 | 403 | 409;
}

export interface LockServer {
  /** Serves WebSocket upgrades on `path` (default "/weblocks"); every other request is the app's. Returns detach(). */
  attach(httpServer: HttpServer | HttpsServer, options?: { path?: string }): () => void;
  /** For an app that routes upgrades itself. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  fence(req: { url?: string; headers: Record<string, string | string[] | undefined> } | IncomingMessage): Promise<FenceTicket>;
  observeLocks(callback: ObserveLocksCallback, options: ObserveLocksOptions & { space: string | number }): () => void;
  query(space: string | number): Promise<LockManagerSnapshot>;
  stats(): { connections: number; sessions: number; detached: number; lost: number; spaces: number };
  close(): Promise<void>;
}

export declare function createLockServer(options: LockServerOptions): LockServer;
