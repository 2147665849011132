#!/usr/bin/env node
// Serves the cross-tab demo on 127.0.0.1 with sirv (a maintained static server), twice:
//   plain    http://127.0.0.1:PORT/demo/        (no special headers: the common deployment)
//   isolated http://127.0.0.1:PORT+1/demo/      (COOP same-origin + COEP require-corp: crossOriginIsolated,
//                                                so the page and its workers may share memory)
// Two ports, not two paths, because locks are per origin: a path prefix would share native locks
// between the variants but not the polyfill's hub (its script URL would differ).
// Only the folders the demo needs are reachable; the fake auth API of the refresh-token scenario
// lives under /api/auth/. Environment: PORT (default 8100; 0 = any free port), ISOLATED_PORT.
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import sirv from 'sirv';
import { createFakeAuthApi } from '../demo/server/fake-auth.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PUBLIC_PREFIXES = ['/demo/', '/js/', '/build/wasm/', '/build/dist/'];

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function createHandler({ isolated, authApi }) {
  // dev: re-read files on every request, so a rebuild shows up on reload.
  const serveStatic = sirv(repoRoot, { dev: true, etag: true, dotfiles: false });
  return (req, res) => {
    if (isolated) for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    const { pathname } = new URL(req.url, 'http://localhost');
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

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server.address().port));
  });
}

/** Starts both servers; returns their URLs and a close(). Used by the Playwright spec too. */
export async function startDemoServer({ port = 8100, isolatedPort } = {}) {
  const authApi = createFakeAuthApi(); // one fake auth server per origin pair is enough: sessions are keyed
  const plain = http.createServer(createHandler({ isolated: false, authApi }));
  const isolated = http.createServer(createHandler({ isolated: true, authApi }));
  const plainPort = await listen(plain, port);
  const isolatedPortBound = await listen(isolated, isolatedPort ?? (port === 0 ? 0 : plainPort + 1));
  return {
    plainUrl: `http://127.0.0.1:${plainPort}/demo/`,
    isolatedUrl: `http://127.0.0.1:${isolatedPortBound}/demo/`,
    close: () => Promise.all([plain, isolated].map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); }))),
  };
}

const runDirectly = process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (runDirectly) {
  const port = Number(process.env.PORT ?? 8100);
  const isolatedPort = process.env.ISOLATED_PORT === undefined ? undefined : Number(process.env.ISOLATED_PORT);
  const { plainUrl, isolatedUrl } = await startDemoServer({ port, isolatedPort });
  console.log(`Web Locks demo (open it in several tabs):`);
  console.log(`  ${plainUrl}`);
  console.log(`  ${isolatedUrl}   (cross-origin isolated variant: COOP + COEP)`);
  console.log(`  add ?impl=polyfill to force this project's polyfill where the browser has native locks`);
  console.log(`Ctrl+C to stop.`);
}
