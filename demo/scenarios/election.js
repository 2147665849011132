// Scenario 1: primary-tab election. Every tab that joins asks for the exclusive lock "primary-tab"
// and, once granted, holds it for as long as it lives and does the "sync" work (one tick a second,
// numbered across tabs through localStorage). Close or crash the primary: the lock is freed and the
// next waiting tab is granted it and takes over. No heartbeat of our own: the lock manager notices.
import { h } from '../ui/dom.js';

export const PRIMARY_LOCK = 'primary-tab';
const SYNC_COUNT_KEY = 'demo:sync-count';
const SYNC_EVERY_MS = 1000;

export function createElection({ locks, bus, selfName, onActivity }) {
  let state = 'idle'; // idle | waiting | primary
  let candidate = false; // joined and not left: a lost primary lock (broken while alive) queues again
  let since = null;
  let controller = null;
  let resign = null;
  let syncTimer = null;
  let lastSync = null; // { by, n, at }
  let lastNote = ''; // how the last turn ended, when it ended with an error

  const status = h('p', { class: 'election-status', dataset: { testid: 'election-status' } });
  const primaryLine = h('p', { dataset: { testid: 'election-primary' } });
  const joinButton = h('button', { dataset: { testid: 'election-join' }, onclick: () => join() }, 'Join the election');
  const leaveButton = h('button', { dataset: { testid: 'election-leave' }, onclick: () => leave() }, 'Leave');
  const element = h('section', { class: 'panel scenario', dataset: { testid: 'election' } },
    h('h2', {}, 'Scenario 1: one primary tab'),
    h('p', { class: 'muted' }, `Tabs that join wait for the exclusive lock "${PRIMARY_LOCK}". The one holding it is the primary and runs the sync work. `,
      'Close the primary (Ctrl+W), or crash it (type chrome://crash in its address bar, or End process in the browser\'s task manager): the next tab in the queue takes over.'),
    h('div', {}, joinButton, ' ', leaveButton), status, primaryLine);

  function join() {
    if (state !== 'idle') return;
    candidate = true;
    state = 'waiting';
    since = Date.now();
    controller = new AbortController();
    locks.request(PRIMARY_LOCK, { signal: controller.signal }, () => {
      state = 'primary';
      since = Date.now();
      bus.post({ type: 'primary', by: selfName, at: since });
      runSync();
      syncTimer = setInterval(runSync, SYNC_EVERY_MS);
      render();
      onActivity();
      return new Promise((resolve) => { resign = resolve; }); // held for this tab's life, or until "Leave"
    }).then(() => stop(), (reason) => {
      // Aborted by Leave while waiting, or the held lock was broken (a steal, a hub that declared this tab dead).
      lastNote = ` (last turn: ${candidate ? 'lost the lock and queued again' : 'left'}: ${reason.name}: ${reason.message})`;
      stop();
      if (candidate) join();
    });
    render();
    onActivity();
  }

  function leave() {
    candidate = false;
    if (state === 'waiting') controller.abort();
    if (state === 'primary') resign();
  }

  function stop() {
    clearInterval(syncTimer);
    state = 'idle';
    since = null;
    render();
    onActivity();
  }

  function runSync() {
    const n = Number(localStorage.getItem(SYNC_COUNT_KEY) ?? 0) + 1;
    localStorage.setItem(SYNC_COUNT_KEY, String(n));
    lastSync = { by: selfName, n, at: Date.now() };
    bus.post({ type: 'sync', ...lastSync });
    render();
  }

  function render() {
    status.dataset.state = state;
    status.textContent = {
      idle: 'This tab is not in the election.',
      waiting: 'This tab is waiting: it takes over when the primary goes away.',
      primary: 'This tab is the primary: it runs the sync work.',
    }[state] + lastNote;
    status.className = `election-status ${state}`;
    primaryLine.dataset.primary = lastSync?.by ?? '';
    primaryLine.textContent = lastSync
      ? `Primary: ${lastSync.by} · sync #${lastSync.n} at ${new Date(lastSync.at).toLocaleTimeString()}`
      : 'No sync run seen yet.';
    joinButton.disabled = state !== 'idle';
    leaveButton.disabled = state === 'idle';
  }
  render();

  return {
    element,
    handle(message) {
      if (message.type === 'sync' || message.type === 'primary') {
        lastSync = message.type === 'sync' ? message : { by: message.by, n: lastSync?.n ?? 0, at: message.at };
        render();
      }
    },
    /** for the live table's "for how long" */
    activity: () => (state === 'idle' ? [] : [{ name: PRIMARY_LOCK, mode: 'exclusive', state: state === 'primary' ? 'held' : 'pending', since }]),
  };
}
