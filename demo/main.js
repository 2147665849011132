// The demo page: one tab = one context. Wires the lock implementation, this tab's name, the live
// table, the controls, workers and the two scenarios.
import { requestedImplementation, selectLocks } from './lib/implementation.js';
import { claimContextName, nextNumber } from './lib/context-name.js';
import { RequestBook } from './lib/request-book.js';
import { openBus } from './lib/bus.js';
import { createPresence } from './lib/presence.js';
import { LockView } from './lib/lock-view.js';
import { Timeline } from './lib/timeline.js';
import { h } from './ui/dom.js';
import { createStatusLine } from './ui/status.js';
import { createLockTable } from './ui/lock-table.js';
import { createControls } from './ui/controls.js';
import { createWorkerPanels } from './ui/workers.js';
import { createTimelineView } from './ui/timeline.js';
import { createQueueView } from './ui/queues.js';
import { createElection } from './scenarios/election.js';
import { createRefreshRace } from './scenarios/refresh-race.js';
import { createDeadlockScenario } from './scenarios/deadlock.js';

const app = document.getElementById('app');
const requested = requestedImplementation();

let selected;
try {
  selected = await selectLocks(requested);
} catch (error) {
  app.replaceChildren(createStatusLine({ requested, error }).element);
  throw error;
}
const { locks, describe } = selected;
const implementation = { kind: describe().kind };
const status = createStatusLine({ describe, requested });
app.replaceChildren(status.element, h('p', { class: 'muted' }, 'Claiming a name...'));

// Shown when this tab's name lock is broken while it lives (see lib/context-name.js).
const lostNotice = h('p', { class: 'status bad', hidden: true, dataset: { testid: 'lost-notice' } });
// Remote contexts are named by their browser: one lock space holds several browsers' tabs.
const selfName = await claimContextName(locks, implementation.kind === 'remote' ? describe().browser : 'Tab', {
  onLost: (error) => {
    lostNotice.hidden = false;
    lostNotice.textContent = `This tab's locks were broken while it was alive (${error.name}: ${error.message}). `
      + 'With the polyfill this happens when the hub hears nothing from a tab for a while (a frozen or starved tab) and declares it dead. It is taking its name back.';
  },
  onRegained: () => {
    lostNotice.textContent += ` Name taken back at ${new Date().toLocaleTimeString()}.`;
    announce();
  },
});
document.title = `${selfName} · Web Locks demo`;

const table = createLockTable({ selfName });
const timeline = new Timeline();
const timelineView = createTimelineView({ timeline, selfName });
const queues = createQueueView({ selfName });
// The polyfill's observeLocks (js/browser/install.js): the live view is pushed, not re-read.
// The remote lock manager's own observeLocks: the lock server pushes every browser's changes.
const observeLocks = implementation.kind === 'polyfill' ? globalThis[Symbol.for('weblocks-wasm.observeLocks')] ?? null
  : implementation.kind === 'remote' ? locks.observeLocks.bind(locks) : null;
const view = new LockView({
  locks, selfName, observeLocks,
  onDeadlock: (change) => deadlock.report(change),
  onChange: () => {
    const rows = view.rows();
    table.update(rows);
    queues.update(rows);
    timeline.observeContexts(view.contexts());
    timeline.observe(rows);
    timelineView.render();
    renderContexts();
    status.refresh();
  },
  onGone: (name) => { timeline.gone(name); timelineView.render(); },
});
const bus = openBus((message) => {
  if (message.type === 'mark') { timeline.mark(message); timelineView.render(); }
  if (message.type === 'bye') { timeline.goodbye(message.name, message.how); timelineView.render(); }
  presence.handle(message);
  view.handle(message);
  election.handle(message);
  race.handle(message);
});
const announce = () => presence.announce();
// This tab's own marks go to its timeline directly (a BroadcastChannel does not echo to itself).
const markAndTell = (event) => {
  const message = { type: 'mark', context: selfName, at: Date.now(), ...event };
  timeline.mark(message);
  timelineView.render();
  bus.post(message);
};
const book = new RequestBook(locks, () => { controls.update(book.list()); announce(); }, markAndTell);
const election = createElection({ locks, bus, selfName, onActivity: announce });
const race = createRefreshRace({ locks, bus, selfName, onActivity: announce });
const deadlock = createDeadlockScenario({ locks, selfName, observing: observeLocks !== null, nameOf: (clientId) => view.contextNameOf(clientId), onActivity: announce });
const presence = createPresence({
  locks, bus, name: selfName, kind: 'tab', implementation,
  sources: [() => book.active(), election.activity, race.activity],
  onSnapshot: (snapshot, ownAnnouncement) => { view.handle(ownAnnouncement); view.offerSnapshot(snapshot); },
});

const controls = createControls({
  title: `${selfName} (this tab)`, testid: 'tab-controls',
  onRequest: (options) => book.request(options),
  onAbort: (id) => book.abort(id),
  onRelease: (id) => book.release(id),
});
// Workers use what this tab resolved to (not 'auto'): a worker on the other one would be in another lock space.
const workers = createWorkerPanels({
  implementation: implementation.kind, parentName: selfName, nextNumber: () => nextNumber(locks, 'Worker'),
  onTerminate: (workerName) => { timeline.goodbye(workerName, 'terminated'); bus.post({ type: 'bye', name: workerName, how: 'terminated' }); },
});

const contextList = h('ul', { class: 'contexts', dataset: { testid: 'contexts' } });
// Tabs of this origin on the other implementation: two lock spaces, so "exclusive" is not.
const mixedWarning = h('p', { class: 'status bad warning', hidden: true, dataset: { testid: 'mixed-warning' } });
function renderMixedWarning() {
  const others = view.contexts().filter((context) => !context.inLockSpace && context.implementation?.kind && context.implementation.kind !== implementation.kind);
  mixedWarning.hidden = others.length === 0;
  mixedWarning.dataset.others = others.map((context) => context.name).join(',');
  if (!others.length) return;
  const theirs = others[0].implementation.kind === 'native' ? 'the browser\'s native locks' : 'the polyfill';
  mixedWarning.textContent = `⚠ Two implementations share this page: ${others.map((c) => c.name).join(', ')} ${others.length > 1 ? 'run' : 'runs'} on ${theirs}, `
    + `this tab on ${implementation.kind === 'native' ? 'the browser\'s native locks' : 'the polyfill'}. They are separate lock spaces: `
    + 'a lock held "exclusively" here can be held at the same time there. Use the same choice in every tab (the switch above).';
}
function renderContexts() {
  renderMixedWarning();
  contextList.replaceChildren(...view.contexts().map((context) => h('li', {
    dataset: { testid: 'context', name: context.name, inLockSpace: String(context.inLockSpace) },
    class: context.inLockSpace ? '' : 'bad',
  }, context.name, context.name === selfName ? ' (this tab)' : '', context.parent ? ` (a worker of ${context.parent})` : '',
  context.inLockSpace ? '' : ` — uses ${context.implementation?.kind ?? 'another implementation'}: a separate lock space, its locks are not shared with this tab`)));
}

app.replaceChildren(
  h('header', {}, h('h1', {}, 'Web Locks across tabs and workers'),
    h('p', { class: 'you' }, 'You are ', h('strong', { dataset: { testid: 'self-name' } }, selfName))),
  status.element,
  mixedWarning,
  lostNotice,
  h('section', { class: 'panel' }, h('h2', {}, 'Contexts'), contextList,
    h('button', { dataset: { testid: 'open-tab' }, onclick: () => window.open(location.href, '_blank') }, 'Open another tab'), ' ',
    implementation.kind === 'remote' ? '' : h('button', { dataset: { testid: 'start-worker' }, onclick: () => workers.start() }, 'Start a dedicated worker')),
  timelineView.element,
  h('div', { class: 'columns' }, queues.element, table.element),
  h('div', { class: 'columns' }, h('div', {}, controls.element, workers.element), h('div', {}, election.element, race.element, deadlock.element)),
);

// The timer only re-renders elapsed times and this tab's own hub connection line; the lock state
// is pushed by observeLocks (the polyfill), or re-read on announcements only (native locks).
setInterval(() => { timelineView.render(); table.tick(); controls.tick(); workers.tick(); status.refresh(); }, 250);
addEventListener('pagehide', () => presence.leave());
presence.greet();
announce();
document.body.dataset.ready = 'true';
