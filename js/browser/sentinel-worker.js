// The sentinel's whole program (js/browser/sentinel.js says what a sentinel is for). Built into
// build/dist/weblocks-sentinel.js, a classic worker script served next to the hub, so that a
// Content-Security-Policy of `worker-src 'self'` allows it (no blob: URL, no inline code). It runs
// as a dedicated worker of its context, or (WebKit windows) as a SharedWorker of the window's own.
//
// Its context sends it a port whose other end the hub holds, with the protocol's names for a ping
// and its answer and how long a silence of the hub may last ({ ping, pong, silentAfter }: this
// script imports nothing, so it stays a few hundred bytes); it answers the hub's pings on it.
// It also tells its context when the hub stops pinging (its timers run at full rate where a
// background tab's are throttled), and when it first answered (for diagnostics).
let hubPort = null;
let alarm = 0;
let answering = false;
// Its context: the dedicated worker's own global, or a shared worker's (one) connection.
let context = self;

let silentAfter = 0;

const arm = () => {
  clearTimeout(alarm);
  alarm = setTimeout(() => context.postMessage('hub-silent'), silentAfter);
};

const fromContext = (event) => {
  const port = event.ports[0];
  const { ping, pong } = event.data ?? {};
  if (port === undefined || typeof ping !== 'string' || typeof pong !== 'string') return;
  silentAfter = Number(event.data.silentAfter);
  if (hubPort !== null) hubPort.close();
  hubPort = port;
  port.onmessage = (e) => {
    if (e.data !== null && typeof e.data === 'object' && e.data.t === ping) {
      port.postMessage({ t: pong });
      arm();
      if (!answering) { answering = true; context.postMessage('answering'); }
    }
  };
  arm();
};

if (typeof SharedWorkerGlobalScope === 'function' && self instanceof SharedWorkerGlobalScope) {
  self.onconnect = (event) => { context = event.ports[0]; context.onmessage = fromContext; };
} else {
  self.onmessage = fromContext;
}
