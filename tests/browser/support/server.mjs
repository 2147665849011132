// The test server: the repository root over sirv on node:http, three times: a plain origin on
// loopback (no special headers, like most deployments; a secure context, as 127.0.0.1 is), a
// cross-origin-isolated one on loopback (COOP + COEP, so pages and their workers may share
// memory), and an insecure origin: plain http on a made-up name that each browser resolves to
// 127.0.0.1 (tests/support/insecure-origin.mjs), where browsers have no native navigator.locks (a
// [SecureContext] API) and users need the polyfill. Every server listens on 127.0.0.1 only.
// On the plain origins, `?coi` isolates one page. Port 0: any free port. `node
// support/server.mjs` serves them until killed, printing their URLs (for trying pages by hand).
import fs from 'node:fs';
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

/**
 * The Content-Security-Policy of a policy origin for one response. A page opened for WebKit's
 * remote control (`?remote-tab=`) runs the test's functions with eval, so its script-src gets
 * 'unsafe-eval' added, and a trusted-types directive the agent's `default` policy; nothing else changes (worker-src, which falls back to script-src,
 * matches URLs as before; the workers' and the hub's own responses keep the policy as it is).
 */
function policyFor(policy, req) {
  if (!/[?&]remote-tab=/.test(req.url)) return policy;
  const directives = policy.split(';').map((d) => d.trim()).filter(Boolean);
  // Under Trusted Types eval takes a TrustedScript: the agent makes them with a `default` policy
  // of createScript only (so script URLs, the polyfill's business, are not touched).
  const types = directives.findIndex((d) => d.startsWith('trusted-types '));
  if (types >= 0) directives[types] += ' default';
  const script = directives.findIndex((d) => d.startsWith('script-src '));
  if (script >= 0) directives[script] += " 'unsafe-eval'";
  else {
    const fallback = directives.find((d) => d.startsWith('default-src '));
    directives.push(`script-src ${fallback ? fallback.slice('default-src '.length) : "'self'"} 'unsafe-eval'`);
  }
  return directives.join('; ');
}

// Longer than any test that uses /slow-sentinel/ (below) runs.
export const SLOW_SENTINEL_MS = 30_000;

// A run of the loader specs: the repository under /loader-run/<run>/, every request to it logged
// (loader.spec.js counts what a page downloads); under /loader-run-no-rest/<run>/ the same but for
// the loaders' rests, weblocks-polyfill-sync.js and js/browser/polyfill-rest.js, which answer 404
// (a deploy that lost them).
const LOADER_RUN = /^\/loader-run(-no-rest)?\/([\w-]+)(\/.*)$/;

function handler(isolated, remote, policies = null, log = []) {
  const files = sirv(root, { dev: true, dotfiles: false });
  return (req, res) => {
    const run = req.url.match(LOADER_RUN);
    if (run) {
      log.push({ run: run[2], path: run[3].split('?')[0] });
      req.url = run[3];
      if (run[1] && /\/(weblocks-polyfill-sync|polyfill-rest)\.js(\?|$)/.test(run[3])) {
        res.writeHead(404, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
        res.end('not found');
        return;
      }
    }
    const headers = { 'Cache-Control': 'no-store' };
    // A policy origin (startServers' withPolicy): its policy on every response, the hub script's
    // own where one is given for it.
    if (policies !== null) {
      const hub = /\/weblocks-hub\.js(\?|$)/.test(req.url);
      headers['Content-Security-Policy'] = policyFor(hub ? policies.hub : policies.page, req);
    }
    // ?coi on the plain origin: an isolated page of the same origin (same hub), which Chromium
    // puts in a process of its own (crashing it cannot take the hub down with it).
    if (isolated || /[?&]coi\b/.test(req.url)) Object.assign(headers, ISOLATION);
    // A worker script of a cross-origin-isolated page must carry COEP itself (Chromium refuses it
    // otherwise); a ?coi page's sentinel is such a script, served as an isolated app serves it.
    else if (/\/weblocks-sentinel\.js(\?|$)/.test(req.url)) Object.assign(headers, { 'Cross-Origin-Embedder-Policy': 'require-corp', 'Cross-Origin-Resource-Policy': 'same-origin' });
    // ?cacheable: a page the back/forward cache may keep (Chromium keeps no page served with
    // no-store, and sirv's dev mode says no-store): revalidated on every load all the same.
    const cacheable = /[?&]cacheable\b/.test(req.url);
    if (cacheable) headers['Cache-Control'] = 'no-cache';
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    // A deployment that forgot the wasm files: the classic bundles alone, under /no-wasm/.
    const noWasm = req.url.match(/^\/no-wasm\/(weblocks-(?:polyfill(?:-sync)?|hub|in-context)\.js)(\?.*)?$/);
    if (noWasm) req.url = `/build/dist/${noWasm[1]}`;
    // One that forgot the hub script: the polyfill and the wasm files alone, under /no-hub/.
    const noHub = req.url.match(/^\/no-hub\/(weblocks-polyfill(?:-sync)?\.js|weblocks-engine(?:-shared)?\.wasm)(\?.*)?$/);
    if (noHub) req.url = `/build/dist/${noHub[1]}`;
    // One that forgot the observeLocks client: everything of build/dist/ but weblocks-observe.js, under /no-observe/.
    const noObserve = req.url.match(/^\/no-observe\/(weblocks-(?:polyfill(?:-sync)?|hub|sentinel|in-context)\.js|weblocks-engine(?:-shared)?\.wasm)(\?.*)?$/);
    if (noObserve) req.url = `/build/dist/${noObserve[1]}`;
    // A response that clears the origin's storage (honoured on secure origins only), as a site's
    // logout or a "clear data" button does: clear-site-data.spec.js.
    if (/^\/clear-site-data(\?|$)/.test(req.url)) {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Clear-Site-Data': '"storage"' });
      res.end('cleared');
      return;
    }
    if (remote.serveWithAgent(req, res, headers)) return;
    if (cacheable && serveHtml(req, res, headers)) return;
    const notFound = () => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    };
    // One whose sentinel script comes late: build/dist/ under /slow-sentinel/, its
    // weblocks-sentinel.js answered after SLOW_SENTINEL_MS (a context whose sentinel has not
    // answered the hub yet: hub-loss.spec.js).
    const slow = req.url.match(/^\/slow-sentinel\/(weblocks-(?:polyfill(?:-sync)?|hub|sentinel)\.js|weblocks-engine(?:-shared)?\.wasm)(\?.*)?$/);
    if (slow) {
      req.url = `/build/dist/${slow[1]}`;
      if (slow[1] === 'weblocks-sentinel.js') { setTimeout(() => files(req, res, notFound), SLOW_SENTINEL_MS); return; }
    }
    files(req, res, notFound);
  };
}

/** Serves an HTML page of the repository with `headers` as they are; false when the request is not for one. */
function serveHtml(req, res, headers) {
  const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://host').pathname));
  if (!file.startsWith(root) || !file.endsWith('.html') || !fs.existsSync(file)) return false;
  res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(fs.readFileSync(file));
  return true;
}

function listen(server, port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}

/**
 * Starts the origins; returns { plain, isolated, loopback, insecure, remote, requestsOf(run), close() } with base
 * URLs ending in '/' and the remote-control channel (remote-control.mjs) they all serve. `plain`
 * is where the specs' tabs run: the insecure origin in Firefox and WebKit; in Chromium the
 * loopback one, because Chromium honours COOP only in secure contexts and its crash specs need
 * `?coi` pages in processes of their own (its suite and install specs use `insecure` too).
 */
export async function startServers({ engine = 'chromium', plainPort = 0, isolatedPort = 0, insecurePort = 0 } = {}) {
  const remote = new RemoteControl(root);
  const log = [];
  const loopback = http.createServer(handler(false, remote, null, log));
  const isolated = http.createServer(handler(true, remote, null, log));
  const insecure = http.createServer(handler(false, remote, null, log));
  for (const server of [loopback, isolated, insecure]) remote.attach(server);
  const l = await listen(loopback, plainPort);
  const i = await listen(isolated, isolatedPort);
  const n = await listen(insecure, insecurePort);
  const urls = { loopback: `http://127.0.0.1:${l}/`, isolated: `http://127.0.0.1:${i}/`, insecure: insecureBase(n) };
  const all = [loopback, isolated, insecure];
  return {
    ...urls,
    plain: engine === 'chromium' ? urls.loopback : urls.insecure,
    remote,
    /** The paths a loader run (LOADER_RUN above) requested, in the order they came, without the run's prefix. */
    requestsOf: (run) => log.filter((entry) => entry.run === run).map((entry) => entry.path),
    /**
     * An insecure origin of its own (a fresh lock space) that serves `page` (a CSP header value, or
     * a function of the origin's base URL that gives one) on every response, and `hub` (likewise;
     * default: `page`) on the hub script's. -> the origin's base URL.
     */
    async withPolicy(page, { hub = page } = {}) {
      const policies = {};
      const server = http.createServer(handler(false, remote, policies));
      remote.attach(server);
      all.push(server);
      const base = insecureBase(await listen(server, 0));
      const of = (policy) => (typeof policy === 'function' ? policy(base) : policy);
      Object.assign(policies, { page: of(page), hub: of(hub) });
      return base;
    },
    close: () => {
      remote.close();
      return Promise.all(all.map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); })));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const servers = await startServers({ plainPort: 8200, isolatedPort: 8201, insecurePort: 8202 });
  console.log(`plain:    ${servers.loopback}tests/browser/pages/plain.html`);
  console.log(`isolated: ${servers.isolated}tests/browser/pages/plain.html`);
  console.log(`insecure: ${servers.insecure}tests/browser/pages/plain.html   (map weblocks.test to 127.0.0.1 in the browser: docs/demo.md)`);
}
