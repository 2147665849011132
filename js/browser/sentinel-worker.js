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
//
// And it speaks for a busy context when its hub is lost: the context tells it `vouch` ({ hubId,
// clientId } while it holds or waits under that hub, else null). When its hub has gone silent
// and a new hub announces itself on the hub's channel (`channel`, `started`), the sentinel says
// `{ t: hadHub, hubId, clientId }` there every `every` ms until its context has re-registered (and
// once at once when any new hub announces itself, silent or not: below):
// the new hub keeps its reclaim window open while it hears that (js/hub/reclaim-window.js survivorAlive), so
// a context busy in a long task when its hub died still takes its locks back.
let hubPort = null;
/** @type {any} a timer: a number in workers, a Timeout under Node's types */
let alarm = 0;
let answering = false;
// Its context: the dedicated worker's own global, or a shared worker's (one) connection.
/** @type {any} a worker's global or a MessagePort */
let context = self;

let silentAfter = 0;
let silent = false;  // no ping from the hub for silentAfter
let init = null;     // the context's last init message: the channel's name and message types
let channel = null;
let vouch = null;
let latestHub = null; // the last hub heard announcing itself
/** @type {any} a timer, as alarm */
let vouching = 0;

const update = () => {
  if (vouch === null || !silent || latestHub === null || latestHub === vouch.hubId) {
    clearInterval(vouching);
    vouching = 0;
  } else if (vouching === 0) {
    const say = () => channel.postMessage({ t: init.hadHub, hubId: vouch.hubId, clientId: vouch.clientId });
    say();
    vouching = setInterval(say, init.every);
  }
};

const arm = () => {
  clearTimeout(alarm);
  silent = false;
  update();
  alarm = setTimeout(() => {
    silent = true;
    update();
    context.postMessage('hub-silent');
  }, silentAfter);
};

const fromContext = (event) => {
  const data = event.data !== null && typeof event.data === 'object' ? event.data : {};
  if ('vouch' in data) { vouch = data.vouch; update(); }
  const port = event.ports[0];
  const { ping, pong } = data;
  if (port === undefined || typeof ping !== 'string' || typeof pong !== 'string') return;
  silentAfter = Number(data.silentAfter);
  init = data;
  if (channel === null && typeof data.channel === 'string' && typeof BroadcastChannel === 'function') {
    channel = new BroadcastChannel(data.channel);
    channel.onmessage = (e) => {
      if (e.data !== null && typeof e.data === 'object' && e.data.t === init.started && typeof e.data.hubId === 'string') {
        const fresh = e.data.hubId !== latestHub;
        latestHub = e.data.hubId;
        // A new hub while our context holds or waits under another: answer now, once, whether or
        // not our hub has gone silent yet. A hub started within a second of its predecessor's death
        // (a tab opened right then) grants after its 100 ms start-up hold, before our silence would
        // make us speak: a context busy (or starved on a loaded machine) meanwhile could not answer
        // in time, and the newcomer was granted the lock while the context's callback still ran.
        // The context answers the same itself when it can (hub-loss-watch.js heardAnnouncement).
        if (fresh && vouch !== null && latestHub !== vouch.hubId && vouching === 0) {
          channel.postMessage({ t: init.hadHub, hubId: vouch.hubId, clientId: vouch.clientId });
        }
        update();
      }
    };
  }
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
