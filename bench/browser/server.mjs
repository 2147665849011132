// A static server for the repository root (bench pages, js/, build/, node_modules/ peers) on 127.0.0.1,
// a secure context, so Chromium's native navigator.locks exists there. Port 0 = any free port.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const root = fileURLToPath(new URL('../..', import.meta.url));

// isolated: every response says COOP + COEP, so that Chromium gives each tab a process of its own
// (a crash takes only that tab down: bench/browser/crash-release.mjs).
export function startServer({ port = 0, isolated = false } = {}) {
  const serve = sirv(root, { dev: true, dotfiles: false });
  const server = http.createServer((request, response) => {
    if (isolated) {
      response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      response.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    serve(request, response, () => {
      response.statusCode = 404;
      response.end('not found');
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolve({ origin: `http://127.0.0.1:${actual}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
