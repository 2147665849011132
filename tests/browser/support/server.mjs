// The test server: the repository root over sirv on node:http, twice: a plain origin (no special
// headers, like most deployments) and a cross-origin-isolated one (COOP + COEP, so pages and
// their workers may share memory); on the plain origin, `?coi` isolates one page. Port 0: any free port. `node support/server.mjs` serves both
// until killed, printing their URLs (for trying the pages by hand).
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function handler(isolated) {
  const files = sirv(root, { dev: true, dotfiles: false });
  return (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    // ?coi on the plain origin: an isolated page of the same origin (same hub), which Chromium
    // puts in a process of its own (crashing it cannot take the hub down with it).
    if (isolated || /[?&]coi\b/.test(req.url)) for (const [name, value] of Object.entries(ISOLATION)) res.setHeader(name, value);
    // A deployment that forgot the wasm files: the classic bundles alone, under /no-wasm/.
    const noWasm = req.url.match(/^\/no-wasm\/(weblocks-(?:polyfill|hub)\.js)(\?.*)?$/);
    if (noWasm) req.url = `/build/dist/${noWasm[1]}`;
    // One that forgot the hub script: the polyfill and the wasm files alone, under /no-hub/.
    const noHub = req.url.match(/^\/no-hub\/(weblocks-polyfill\.js|weblocks-engine(?:-shared)?\.wasm)(\?.*)?$/);
    if (noHub) req.url = `/build/dist/${noHub[1]}`;
    files(req, res, () => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    });
  };
}

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server.address().port));
  });
}

/** Starts both origins; returns { plain, isolated, close() } with base URLs ending in '/'. */
export async function startServers({ plainPort = 0, isolatedPort = 0 } = {}) {
  const plain = http.createServer(handler(false));
  const isolated = http.createServer(handler(true));
  const p = await listen(plain, plainPort);
  const i = await listen(isolated, isolatedPort);
  return {
    plain: `http://127.0.0.1:${p}/`,
    isolated: `http://127.0.0.1:${i}/`,
    close: () => Promise.all([plain, isolated].map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); }))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const servers = await startServers({ plainPort: 8200, isolatedPort: 8201 });
  console.log(`plain:    ${servers.plain}tests/browser/pages/plain.html`);
  console.log(`isolated: ${servers.isolated}tests/browser/pages/plain.html`);
}
