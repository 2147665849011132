#!/usr/bin/env node
// Serves the cross-tab demo with sirv (a maintained static server) on node:http:
//   plain    http://<this machine's LAN address>:PORT/demo/  an insecure origin (plain http off
//            loopback): browsers offer no navigator.locks there, so the polyfill runs: the case
//            this project exists for (an intranet app on plain http)
//            http://127.0.0.1:PORT/demo/                     the same page on a secure context,
//            where the browser's native locks run (another origin, so another lock space)
//   isolated http://127.0.0.1:PORT+1/demo/  (COOP same-origin + COEP require-corp: crossOriginIsolated,
//            so the page and its workers may share memory; isolation needs a secure context,
//            so this variant is served on loopback only)
// Two ports, not two paths, because locks are per origin: a path prefix would share native locks
// between the variants but not the polyfill's hub (its script URL would differ).
// The demo's lock server (weblocks-wasm/server) answers WebSocket upgrades on /demo/locks of every
// origin: pages opened with ?impl=remote, in any browser and on any device, share one lock space.
// Only the folders the demo needs are reachable; the fake auth API of the refresh-token scenario
// lives under /api/auth/.
// Environment: PORT (default 8100; 0 = any free port), ISOLATED_PORT (default PORT + 1),
// HOST: where the plain page listens besides 127.0.0.1:
//   lan (default of `bash scripts/demo.sh`)  every non-loopback IPv4 address of this machine (what
//                  `hostname -I` shows): a phone on the same network can open the insecure origin
//   loopback       127.0.0.1 only (nobody else on the network can reach it; the insecure origin is
//                  a name mapped to 127.0.0.1 in the browser, see docs/demo.md). The default of
//                  startDemoServer(), so tests and benchmarks never listen on, or send to, any
//                  other address
//   <address>      that address only (0.0.0.0: every interface)
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sirv from 'sirv';
import { createFakeAuthApi } from '../demo/server/fake-auth.mjs';
import { createLockServer } from '../js/server/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PUBLIC_PREFIXES = ['/demo/', '/js/', '/build/wasm/', '/build/dist/'];
const LOOPBACK = '127.0.0.1';
const REMOTE_AGENT = '/tests/browser/support/remote-agent.js';

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function createHandler({ isolated, authApi, remote }) {
  // dev: re-read files on every request, so a rebuild shows up on reload.
  const serveStatic = sirv(repoRoot, { dev: true, etag: true, dotfiles: false });
  return (req, res) => {
    if (isolated) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    const { pathname } = new URL(req.url, 'http://localhost');
    // Under test only: pages opened with ?remote-tab= get the test agent (see startDemoServer).
    if (remote) {
      if (remote.serveWithAgent(req, res, { 'Cache-Control': 'no-store' })) return;
      if (pathname === REMOTE_AGENT) return serveStatic(req, res, () => notFound(res));
    }
    if (pathname === '/' || pathname === '/demo') {
      res.writeHead(302, { Location: '/demo/' });
      return res.end();
    }
    if (pathname.startsWith('/api/auth/')) return authApi(req, res);
    if (!PUBLIC_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return notFound(res);
    serveStatic(req, res, () => notFound(res));
  };
}

function notFound(res) {
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Not found\n');
}

/** This machine's non-loopback IPv4 addresses (what `hostname -I` prints, IPv4 only). */
export function lanAddresses() {
  return Object.values(os.networkInterfaces()).flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal).map((a) => a.address);
}

/** 'lan' | 'loopback' | an address -> the addresses the plain page listens on besides 127.0.0.1 */
export function plainHosts(host) {
  if (host === 'loopback' || host === LOOPBACK || host === 'localhost') return [];
  if (host === 'lan') return lanAddresses();
  return [host];
}

/** A port already taken, said plainly (the runner prints it instead of a stack trace). */
export class PortInUseError extends Error {
  constructor(host, port) {
    super(`port ${port} is already in use on ${host} (is another demo server still running?). `
      + 'Stop it, or pick other ports: PORT=8300 bash scripts/demo.sh (PORT=0: any free ports).');
    this.name = 'PortInUseError';
  }
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    const onError = (error) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(host, port) : error);
    server.once('error', onError);
    server.listen(port, host, () => { server.off('error', onError); resolve(server.address().port); });
  });
}

const closeServer = (server) => new Promise((resolve) => {
  if (!server.listening) { resolve(); return; }
  server.closeAllConnections();
  server.close(() => resolve());
});

/** One handler on one port, on several addresses (the first picks the port when it is 0). */
async function listenOnAll(handler, port, hosts, remote) {
  const servers = [];
  try {
    let bound = port;
    for (const host of hosts) {
      const server = http.createServer(handler);
      remote?.attach(server);
      servers.push(server);
      bound = await listen(server, bound, host);
    }
    return { servers, port: bound };
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
}

const urlOf = (host, port) => `http://${host.includes(':') ? `[${host}]` : host}:${port}/demo/`;

/**
 * Starts the servers; returns their URLs and a close(). Used by the Playwright specs too.
 * -> { loopbackUrl, insecureUrls: [one per extra address], plainUrl (= loopbackUrl), isolatedUrl, close }
 * `remote` (tests only): the browser tests' remote-control channel (tests/browser/support/
 * remote-control.mjs), which drives WebKit's tabs: pages opened with ?remote-tab= get its agent
 * and connect back over a WebSocket on the same origin.
 */
export async function startDemoServer({ port = 8100, isolatedPort, host = 'loopback', remote } = {}) {
  const authApi = createFakeAuthApi(); // one fake auth server for every origin: sessions are keyed
  const extraHosts = plainHosts(host).filter((h) => h !== LOOPBACK);
  const plainHandler = createHandler({ isolated: false, authApi, remote });
  // With port 0 another process may take the chosen port on a second address in between: retry.
  let plain;
  for (let attempt = 0; ; attempt += 1) {
    try {
      plain = await listenOnAll(plainHandler, port, [LOOPBACK, ...extraHosts], remote);
      break;
    } catch (error) {
      if (!(error instanceof PortInUseError) || port !== 0 || attempt >= 5) throw error;
    }
  }
  let isolated;
  try {
    isolated = await listenOnAll(createHandler({ isolated: true, authApi, remote }), isolatedPort ?? (port === 0 ? 0 : plain.port + 1), [LOOPBACK], remote);
  } catch (error) {
    await Promise.all(plain.servers.map(closeServer));
    throw error;
  }
  // One space for everybody (a demo has no users); the Origin check is the default: the page's own host.
  const lockServer = createLockServer({ authorize: () => 'demo' });
  for (const server of [...plain.servers, ...isolated.servers]) lockServer.attach(server, { path: '/demo/locks' });
  const loopbackUrl = urlOf(LOOPBACK, plain.port);
  return {
    lockServer,
    loopbackUrl,
    plainUrl: loopbackUrl,
    insecureUrls: extraHosts.map((h) => urlOf(h, plain.port)),
    isolatedUrl: urlOf(LOOPBACK, isolated.port),
    close: () => Promise.all([lockServer.close(), ...[...plain.servers, ...isolated.servers].map(closeServer)]),
  };
}

function printUrls({ loopbackUrl, insecureUrls, isolatedUrl }, host) {
  console.log('Web Locks demo (open it in several tabs):');
  if (insecureUrls.length) {
    console.log('  The polyfill at work, on an insecure origin (plain http off loopback: browsers have no navigator.locks there):');
    for (const url of insecureUrls) console.log(`    ${url}`);
    console.log('  (reachable from other machines on your network too, e.g. a phone; HOST=loopback keeps it on this machine)');
  } else {
    console.log(host === 'lan'
      ? '  No network address found on this machine, so no insecure origin is served; see docs/demo.md for a name mapped to 127.0.0.1.'
      : '  Listening on 127.0.0.1 only; for an insecure origin map a name to 127.0.0.1, see docs/demo.md.');
  }
  console.log('  The browser\'s native locks (127.0.0.1 is a secure context):');
  console.log(`    ${loopbackUrl}`);
  console.log(`    ${isolatedUrl}   (cross-origin isolated variant: COOP + COEP)`);
  console.log('  add ?impl=polyfill to force this project\'s polyfill where the browser has native locks');
  console.log('  add ?impl=remote to share one lock space with every browser and device that opens it (the lock server)');
  console.log('Ctrl+C to stop.');
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (runDirectly) {
  const port = Number(process.env.PORT ?? 8100);
  const isolatedPort = process.env.ISOLATED_PORT === undefined ? undefined : Number(process.env.ISOLATED_PORT);
  const host = process.env.HOST || 'lan';
  try {
    printUrls(await startDemoServer({ port, isolatedPort, host }), host);
  } catch (error) {
    if (!(error instanceof PortInUseError) && error.code !== 'EADDRNOTAVAIL') throw error;
    console.error(`The demo server cannot start: ${error.code === 'EADDRNOTAVAIL' ? `${error.address} is not an address of this machine (HOST=${host}); use HOST=lan, HOST=loopback or one of: ${lanAddresses().join(', ') || 'none'}` : error.message}`);
    process.exit(1);
  }
}
