// Injected by the test server into pages opened with `?remote-tab=<id>` (WebKit, see
// engines/webkit.js): connects back to the test process over a WebSocket and runs the functions
// it is sent (Playwright's page.evaluate, over our own channel), reports console messages and
// uncaught errors. A WebDriver session cannot do this for us: WebKit ends the whole session when
// any of its pages' processes crashes, and the liveness specs crash them on purpose.
(function remoteAgent() {
  const tab = new URLSearchParams(location.search).get('remote-tab');
  if (!tab) return;
  // A page that enforces Trusted Types takes only TrustedScript in eval: a default policy that
  // makes scripts, and nothing else (the test server allows it on such pages: server.mjs policyFor).
  if (window.trustedTypes && !window.trustedTypes.defaultPolicy) {
    try { window.trustedTypes.createPolicy('default', { createScript: (source) => source }); } catch { /* not allowed: no Trusted Types here */ }
  }
  const early = [];
  let socket = null;
  const send = (message) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message)); else early.push(message);
  };
  const connect = () => {
    socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/__remote?tab=${encodeURIComponent(tab)}`);
    socket.onopen = () => { for (const m of early.splice(0)) socket.send(JSON.stringify(m)); };
    socket.onmessage = run;
  };
  // The back/forward cache: the page closes its channel as it enters (an open socket would keep it
  // out in some engines, and the test then sees the page gone) and connects again when restored,
  // which the test process sees as the tab's next document (engines/webkit.js leave).
  addEventListener('pagehide', (event) => { if (event.persisted) socket.close(); });
  addEventListener('pageshow', (event) => { if (event.persisted) connect(); });
  for (const type of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[type];
    console[type] = function (...args) {
      send({ t: 'console', type: type === 'warn' ? 'warning' : type, text: args.map((a) => String(a)).join(' ') });
      return original.apply(this, args);
    };
  }
  addEventListener('error', (event) => send({ t: 'pageerror', text: String((event.error && event.error.stack) || event.message) }));
  async function run(event) {
    const command = JSON.parse(event.data);
    let reply;
    try {
      const fn = (0, eval)(`(${command.fn})`);
      const value = await fn(command.arg);
      reply = { t: 'result', id: command.id, value: value === undefined ? null : value };
    } catch (error) {
      reply = { t: 'result', id: command.id, error: String((error && error.stack) || error) };
    }
    send(reply);
  }
  connect();
})();
