// Scenario 2: the refresh-token race. A session's access token has expired, and every tab calls
// the API at once: each gets 401 and must refresh. The fake auth server rotates refresh tokens and
// revokes the session when an already-used one comes back (as real servers do against theft).
//   without the lock: every tab sends the same refresh token; one wins, the others reuse a rotated
//                     token, the server revokes the session: the user is logged out.
//   with the lock:    navigator.locks.request('refresh-token', ...) around the refresh; inside it a
//                     tab first retries the API call, and if another tab refreshed meanwhile it
//                     reuses that (as in the article): exactly one refresh runs.
// The tokens are HttpOnly cookies, shared by the tabs as in the article. (Not localStorage: another
// tab's write may reach this tab after the lock does, so a tab could read a stale token inside it.)
import { h } from '../ui/dom.js';

export const REFRESH_LOCK = 'refresh-token';
const SLOW_MOTION_LATENCY_MS = 2500;

// A round's id: unique across tabs without crypto.randomUUID, which exists in secure contexts only
// (this page must work on plain http off loopback, the polyfill's own case).
let roundsStarted = 0;
const newRoundId = (selfName) => `${selfName}:${Date.now()}:${(roundsStarted += 1)}:${Math.random().toString(36).slice(2, 10)}`;

export function createRefreshRace({ locks, bus, selfName, onActivity }) {
  let activity = [];
  let round = null; // { id, useLock, sessionId, outcomes: Map(tab -> outcome), stats }
  let running = false;

  const useLock = h('input', { type: 'checkbox', checked: true, dataset: { testid: 'race-use-lock' } });
  const slowMotion = h('input', { type: 'checkbox', dataset: { testid: 'race-slow' } });
  const runButton = h('button', { dataset: { testid: 'race-run' }, onclick: () => start() }, 'Every tab gets 401 now');
  const own = h('p', { dataset: { testid: 'race-own' } });
  const summary = h('div', { dataset: { testid: 'race-summary' } });
  const element = h('section', { class: 'panel scenario', dataset: { testid: 'refresh-race' } },
    h('h2', {}, 'Scenario 2: the refresh-token race'),
    h('p', { class: 'muted' }, 'A new session starts with an expired access token (tokens are HttpOnly cookies, shared by all tabs), and every open tab calls the API at the same moment. ',
      'The fake auth server rotates refresh tokens and revokes the session when a used one is presented again. It answers a refresh after 500 ms, like a real one over the network, and counts every refresh it receives.'),
    h('div', { class: 'race-options' }, h('label', {}, useLock, ` refresh inside navigator.locks.request('${REFRESH_LOCK}')`), ' ',
      h('label', { title: 'the fake server answers a refresh after 2.5 s instead of 0.5 s: watch the other tabs queue in the timeline' }, slowMotion, ' slow motion'), ' ', runButton),
    own, summary);

  async function start() {
    if (running) return;
    let login;
    try {
      const latency = slowMotion.checked ? `?latencyMs=${SLOW_MOTION_LATENCY_MS}` : '';
      const response = await fetch(`/api/auth/login-expired${latency}`, { method: 'POST' });
      if (!response.ok) throw new Error(`the fake auth server answered ${response.status} (is this page served by scripts/serve.mjs?)`);
      login = await response.json();
    } catch (error) {
      own.textContent = `Could not log in: ${error.name}: ${error.message}`;
      return;
    }
    const message = { type: 'race', id: newRoundId(selfName), useLock: useLock.checked, sessionId: login.sessionId, by: selfName };
    bus.post(message);
    run(message);
  }

  async function run({ id, useLock: withLock, sessionId, by }) {
    round = { id, useLock: withLock, sessionId, by, outcomes: new Map(), stats: null };
    running = true;
    own.textContent = 'Calling the API...';
    render();
    let outcome;
    try {
      outcome = await callApi(withLock);
    } catch (error) {
      outcome = { refresh: 'error', apiStatus: 0, error: `${error.name}: ${error.message}` };
    }
    running = false;
    own.dataset.refresh = outcome.refresh;
    own.dataset.apiStatus = String(outcome.apiStatus);
    own.textContent = `This tab: ${describe(outcome)}`;
    const report = { type: 'race-outcome', id, tab: selfName, ...outcome };
    bus.post(report);
    recordOutcome(report);
  }

  async function callApi(withLock) {
    const first = await fetchData();
    if (first.status !== 401) return { refresh: 'none', apiStatus: first.status };
    if (withLock) track('pending');
    const refresh = withLock
      ? await locks.request(REFRESH_LOCK, async () => {
        track('held');
        // Another tab refreshed while this one waited: reuse its tokens instead of refreshing again.
        return (await fetchData()).ok ? 'reused' : refreshTokens();
      }).finally(() => track(null))
      : await refreshTokens();
    const retry = await fetchData();
    return { refresh, apiStatus: retry.status };
  }

  function track(state) {
    activity = state ? [{ name: REFRESH_LOCK, mode: 'exclusive', state, since: Date.now() }] : [];
    onActivity();
  }

  async function refreshTokens() {
    const response = await fetch('/api/auth/refresh', { method: 'POST' });
    return response.ok ? 'refreshed' : 'rejected';
  }

  const fetchData = () => fetch('/api/auth/data');

  async function recordOutcome(report) {
    if (!round || report.id !== round.id) return;
    round.outcomes.set(report.tab, report);
    const response = await fetch(`/api/auth/stats?sessionId=${encodeURIComponent(round.sessionId)}`);
    if (response.ok && report.id === round.id) round.stats = await response.json();
    render();
  }

  function render() {
    if (!round) { summary.replaceChildren(h('p', { class: 'muted' }, 'No round run yet.')); return; }
    const { stats } = round;
    const outcomes = [...round.outcomes.values()].sort((a, b) => a.tab.localeCompare(b.tab, 'en', { numeric: true }));
    summary.dataset.useLock = String(round.useLock);
    summary.dataset.refreshesReceived = stats ? String(stats.refreshesReceived) : '';
    summary.dataset.revoked = stats ? String(stats.revoked) : '';
    summary.dataset.outcomes = String(outcomes.length);
    summary.replaceChildren(
      h('p', {}, `Round started by ${round.by}, ${round.useLock ? 'with' : 'without'} the lock.`),
      h('ul', {}, outcomes.map((o) => h('li', { dataset: { testid: 'race-outcome', tab: o.tab, refresh: o.refresh } }, `${o.tab}: ${describe(o)}`))),
      // (replaceChildren would print a null as the text "null")
      stats ? h('p', { class: stats.revoked ? 'bad' : 'good', dataset: { testid: 'race-server' } },
        `Auth server: ${stats.refreshesReceived} refresh request(s) received, ${stats.refreshesAccepted} accepted, ${stats.refreshesRejected} rejected. `,
        stats.revoked ? 'Session revoked: the user is logged out in every tab.' : 'Session alive.') : '');
  }
  render();

  return {
    element,
    handle(message) {
      if (message.type === 'race') run(message);
      if (message.type === 'race-outcome') recordOutcome(message);
    },
    activity: () => activity,
  };
}

function describe({ refresh, apiStatus, error }) {
  if (error) return error;
  const how = { refreshed: 'ran the refresh', reused: 'reused the refresh another tab ran', rejected: 'ran a refresh that was rejected', none: 'needed no refresh' }[refresh] ?? refresh;
  return `${how}; API retried: ${apiStatus === 200 ? '200 OK' : `${apiStatus} (logged out)`}`;
}
