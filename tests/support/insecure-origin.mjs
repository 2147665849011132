// The insecure origin of every test, benchmark and harness: a made-up host name that each browser
// resolves to 127.0.0.1. 127.0.0.1 and localhost are secure contexts (no polyfill needed there);
// plain http on any other name is not, so `http://weblocks.test:PORT/` is where users need us.
// Tests never use this machine's non-loopback address: traffic goes to loopback only
// (tests/node/repo/loopback-only.test.js checks that no test or benchmark refers to another).
//
// How each engine is told (measured: such a page has isSecureContext === false and no native
// navigator.locks; tests/browser/install.spec.js proves it in each engine):
// - Chromium: --host-resolver-rules maps the name and makes every other name unresolvable, so
//   nothing the browser looks up by itself leaves the machine.
// - Firefox: network.dns.localDomains maps the name; network.dns.forceResolve sends every other
//   look-up (its own background hosts) to 127.0.0.1 too.
// - WebKitGTK has no such setting: it is given an HTTP proxy on 127.0.0.1 (the WebDriver `proxy`
//   capability) that forwards requests for the name (and for 127.0.0.1 and localhost) to
//   127.0.0.1 at the same port and refuses every other host.
import http from 'node:http';
import net from 'node:net';

export const INSECURE_HOST = 'weblocks.test';
export const LOOPBACK = '127.0.0.1';

/** `http://weblocks.test:PORT/`: the insecure origin of a server listening on 127.0.0.1:PORT. */
export function insecureBase(port) {
  return `http://${INSECURE_HOST}:${port}/`;
}

/** The same URL with the made-up name put in place of 127.0.0.1 or localhost. */
export function insecureUrlOf(loopbackUrl) {
  const url = new URL(loopbackUrl);
  if (url.hostname !== LOOPBACK && url.hostname !== 'localhost') throw new Error(`not a loopback URL: ${loopbackUrl}`);
  url.hostname = INSECURE_HOST;
  return url.href;
}

/** Chromium's switch: the name to 127.0.0.1, every other name unresolvable (IP literals and localhost as they are). */
export const CHROMIUM_RESOLVER_ARG = `--host-resolver-rules=MAP ${INSECURE_HOST} ${LOOPBACK}, MAP * ~NOTFOUND, EXCLUDE ${LOOPBACK}, EXCLUDE localhost`;

/** Firefox's preferences: the name, and every other look-up, to 127.0.0.1. */
export const FIREFOX_RESOLVER_PREFS = {
  'network.dns.localDomains': INSECURE_HOST,
  'network.dns.forceResolve': LOOPBACK,
};

/** The port of `host:port` if host is the made-up name or a loopback name, else null. */
function mappedPort(hostAndPort) {
  const match = /^([^:/]+):(\d+)$/.exec(hostAndPort ?? '');
  if (!match || ![INSECURE_HOST, LOOPBACK, 'localhost'].includes(match[1].toLowerCase())) return null;
  return Number(match[2]);
}

/**
 * An HTTP proxy on 127.0.0.1 for WebKitGTK: `GET http://weblocks.test:PORT/path` (and WebSocket
 * upgrades, and CONNECT weblocks.test:PORT) reach 127.0.0.1:PORT, as do requests for 127.0.0.1 and
 * localhost themselves; any other host is refused with 403 and never contacted. -> { port, refused: [host, ...], close() }
 */
export async function startLoopbackProxy() {
  const refused = [];
  const target = (req) => {
    let url;
    try { url = new URL(req.url); } catch { return null; }
    const port = url.protocol === 'http:' || url.protocol === 'ws:' ? mappedPort(url.host) : null;
    if (port === null) { refused.push(url.host); return null; }
    return { port, path: `${url.pathname}${url.search}` };
  };
  const refuse = (res) => { res.writeHead(403, { 'Content-Type': 'text/plain' }); res.end(`this proxy forwards only http://${INSECURE_HOST}:PORT/\n`); };

  const server = http.createServer((req, res) => {
    const to = target(req);
    if (!to) { refuse(res); return; }
    const upstream = http.request({ host: LOOPBACK, port: to.port, method: req.method, path: to.path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
    req.pipe(upstream);
  });
  // A WebSocket (the remote-control channel of the WebKit tabs) through the proxy: the upgrade
  // request is re-sent to the server with its path, then both sockets are joined.
  server.on('upgrade', (req, socket, head) => {
    const to = target(req);
    if (!to) { socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'); return; }
    const upstream = net.connect(to.port, LOOPBACK, () => {
      const headers = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${req.method} ${to.path} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    const end = () => { socket.destroy(); upstream.destroy(); };
    upstream.on('error', end); socket.on('error', end);
  });
  server.on('connect', (req, socket, head) => {
    const port = mappedPort(req.url);
    if (port === null) { refused.push(req.url); socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'); return; }
    const upstream = net.connect(port, LOOPBACK, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    const end = () => { socket.destroy(); upstream.destroy(); };
    upstream.on('error', end); socket.on('error', end);
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, LOOPBACK, resolve); });
  return {
    port: server.address().port,
    refused,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

/** The WebDriver `proxy` capability that sends WebKitGTK's http (and https) through `proxy`. */
export function webdriverProxyCapability(proxy) {
  const address = `${LOOPBACK}:${proxy.port}`;
  // No `noProxy` (the proxy forwards the loopback names too): WebKitGTK 2.50 copies that list
  // into its proxy settings unterminated: the MiniBrowser crashed as it started in 16 of 46 new
  // sessions of one run (SIGSEGV in g_strdupv under webkit_network_proxy_settings_new, read from
  // a core dump), and WebKitWebDriver never answered those sessions (engines/webkit.js).
  return { proxyType: 'manual', httpProxy: address, sslProxy: address };
}
