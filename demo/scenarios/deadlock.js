// Scenario 3: a deadlock, named. This tab takes a lock and, inside its callback, asks for the same
// exclusive lock again: the inner request waits for the outer lock, which is released only when
// its callback (which waits for the inner request) ends. Nothing can ever move, and no Web Locks
// implementation says so. The polyfill's lock space sees it when the inner request is queued:
// observeLocks reports a deadlock with its cycle (shown here, by context name), and the tab's
// console says it too. "Break it" aborts the inner request (its AbortSignal), which ends both.
import { h } from '../ui/dom.js';
import { NAME_LOCK_PREFIX } from '../lib/context-name.js';

export const DEADLOCK_PREFIX = 'deadlock:';

export function createDeadlockScenario({ locks, selfName, observing, nameOf, onActivity }) {
  let inner = null; // the AbortController of the waiting inner request
  const name = `${DEADLOCK_PREFIX}${selfName}`;
  const reports = h('ul', { class: 'deadlocks', dataset: { testid: 'deadlock-reports' } });
  const startButton = h('button', { dataset: { testid: 'deadlock-start' }, onclick: () => start() }, 'Deadlock this tab');
  const breakButton = h('button', { dataset: { testid: 'deadlock-break' }, disabled: true, onclick: () => inner?.abort() }, 'Break it');
  const element = h('section', { class: 'panel scenario', dataset: { testid: 'deadlock' } },
    h('h2', {}, 'Scenario 3: a deadlock, named'),
    h('p', { class: 'muted' }, `This tab takes '${name}' and, inside its callback, requests '${name}' again and waits for it. `,
      'The inner request can never be granted: the lock it waits for is released only when the callback ends. ',
      observing ? 'The lock space sees the cycle when the inner request is queued, and every tab shows it below (observeLocks).'
        : 'Native locks say nothing about it; switch to the polyfill to see it named.'),
    h('p', {}, startButton, ' ', breakButton),
    reports);

  function start() {
    if (inner !== null) return;
    inner = new AbortController();
    const signal = inner.signal;
    startButton.disabled = true;
    breakButton.disabled = false;
    locks.request(name, async () => {
      await locks.request(name, { signal }, () => {});
    }).catch(() => {}).finally(() => {
      inner = null;
      startButton.disabled = false;
      breakButton.disabled = true;
      onActivity();
    });
    onActivity();
  }

  /** A deadlock observeLocks reported (any tab's). */
  function report(change) {
    // The demo's own name locks make a cycle of contexts by design: each holds its name for its
    // life and waits (shared, outside any callback) for the others', to see them go. A possible
    // deadlock (a cycle seen in the lock space, docs/api.md) of those alone is none: counted, not shown.
    const cycle = change.cycle ?? [];
    if (!change.certain && cycle.every((member) => isNameLock(member.holds) && isNameLock(member.waitsFor))) {
      reports.dataset.ignored = String(Number(reports.dataset.ignored ?? 0) + 1);
      return;
    }
    const who = (clientId) => nameOf(clientId) ?? `client ${clientId}`;
    const waits = change.certain ? 'and, inside its callback, waits for' : 'and waits for';
    const text = cycle.map((member) => `${who(member.clientId)} holds '${member.holds}' ${waits} '${member.waitsFor}'`).join('; ');
    reports.prepend(h('li', { class: 'bad', dataset: { testid: 'deadlock-report', certain: String(change.certain) } },
      `${new Date().toLocaleTimeString()}: ${change.certain ? 'deadlock' : 'possible deadlock'}${change.rejected ? ' (the closing request was rejected)' : ''}: ${text}`));
  }

  return { element, report };
}

const isNameLock = (name) => typeof name === 'string' && name.startsWith(NAME_LOCK_PREFIX);
