// The test server: the repository root over sirv on node:http, three times: a plain origin on
// loopback (no special headers, like most deployments; a secure context, as 127.0.0.1 is), a
// cross-origin-isolated one on loopback (COOP + COEP, so pages and their workers may share
// memory), and an insecure origin: plain http on a made-up name that each browser resolves to
// 127.0.0.1 (tests/support/insecure-origin.mjs), where browsers have no native navigator.locks (a
// [SecureContext] API) and users need the polyfill. Every server listens on 127.0.0.1 only.
// On the plain origins, `?coi` isolates one page. Port 0: any free port. `node
// support/server.mjs` serves them until killed, printing their URLs (for trying pages by hand).
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { RemoteControl } from './remote-control.mjs';
import { insecureBase } from '../../support/insecure-origin.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function handler(isolated, remote) {
  const files = sirv(root, { dev: true, dotfiles: false });
  return (req, res) => {
    const headers = { 'Cache-Control': 'no-store' };
    // ?coi on the plain origin: an isolated page of the same origin (same hub), which Chromium
    // puts in a process of its own (crashing it cannot take the hub down with it).
    if (isolated || /[?&]coi\b/.test(req.url)) Object.assign(headers, ISOLATION);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // A deployment that forgot the wasm files: the classic bundles alone, under /no-wasm/.
    const noWasm = req.url.match(/^\/no-wasm\/(weblocks-(?:polyfill|hub)\.js)(\?.*)?$/);
    if (noWasm) req.url = `/build/dist/${noWasm[1]}`;
    // One that forgot the hub script: the polyfill and the wasm files alone, under /no-hub/.
    const noHub = req.url.match(/^\/no-hub\/(weblocks-polyfill\.js|weblocks-engine(?:-shared)?\.wasm)(\?.*)?$/);
    if (noHub) req.url = `/build/dist/${noHub[1]}`;
    if (remote.serveWithAgent(req, res, headers)) return;
    files(req, res, () => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    });
  };
}

function listen(server, port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}

/**
 * Starts the origins; returns { plain, isolated, loopback, insecure, remote, close() } with base
 * URLs ending in '/' and the remote-control channel (remote-control.mjs) they all serve. `plain`
 * is where the specs' tabs run: the insecure origin in Firefox and WebKit; in Chromium the
 * loopback one, because Chromium honours COOP only in secure contexts and its crash specs need
 * `?coi` pages in processes of their own (its suite and install specs use `insecure` too).
 */
export async function startServers({ engine = 'chromium', plainPort = 0, isolatedPort = 0, insecurePort = 0 } = {}) {
  const remote = new RemoteControl(root);
  const loopback = http.createServer(handler(false, remote));
  const isolated = http.createServer(handler(true, remote));
  const insecure = http.createServer(handler(false, remote));
  for (const server of [loopback, isolated, insecure]) remote.attach(server);
  const l = await listen(loopback, plainPort);
  const i = await listen(isolated, isolatedPort);
  const n = await listen(insecure, insecurePort);
  const urls = { loopback: `http://127.0.0.1:${l}/`, isolated: `http://127.0.0.1:${i}/`, insecure: insecureBase(n) };
  return {
    ...urls,
    plain: engine === 'chromium' ? urls.loopback : urls.insecure,
    remote,
    close: () => {
      remote.close();
      return Promise.all([loopback, isolated, insecure].map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); })));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const servers = await startServers({ plainPort: 8200, isolatedPort: 8201, insecurePort: 8202 });
  console.log(`plain:    ${servers.loopback}tests/browser/pages/plain.html`);
  console.log(`isolated: ${servers.isolated}tests/browser/pages/plain.html`);
  console.log(`insecure: ${servers.insecure}tests/browser/pages/plain.html   (map weblocks.test to 127.0.0.1 in the browser: docs/demo.md)`);
}
