// The origin-wide table: every held and pending lock, its mode, which context, and for how long.
import { h, formatElapsed } from './dom.js';

export function createLockTable({ selfName }) {
  const showBookkeeping = h('input', { type: 'checkbox', dataset: { testid: 'show-bookkeeping' }, onchange: () => render() });
  const bookkeepingNote = h('span', { class: 'muted' });
  const body = h('tbody');
  const element = h('section', { class: 'panel', dataset: { testid: 'lock-table' } },
    h('h2', {}, 'Every lock of this origin, live'),
    h('div', { class: 'table-scroll' }, h('table', {}, h('thead', {}, h('tr', {}, ['Lock', 'Mode', 'State', 'Context', 'For'].map((title) => h('th', {}, title)))), body)),
    h('p', { class: 'muted small' }, h('label', {}, showBookkeeping, ' show the demo\'s own bookkeeping locks '), bookkeepingNote,
      h('br'), 'Each context holds "demo:name:<its name>" for its life and waits (shared) on the others\' name locks to notice when they close or crash.'));

  let rows = [];
  function render() {
    const visible = showBookkeeping.checked ? rows : rows.filter((row) => !row.bookkeeping);
    bookkeepingNote.textContent = `(${rows.length - visible.length} hidden)`;
    body.replaceChildren(...(visible.length ? visible.map((row) => h('tr', {
      class: `${row.status}${row.bookkeeping ? ' bookkeeping' : ''}${row.contextName === selfName ? ' mine' : ''}`,
      dataset: { testid: 'lock-row', lock: row.name, mode: row.mode, status: row.status, context: row.contextName ?? '' },
    },
    h('td', {}, h('code', {}, row.name)), h('td', {}, row.mode), h('td', {}, row.status),
    h('td', { title: row.clientId }, row.contextName ?? `unnamed client ${row.clientId.slice(0, 8)}`, row.contextName === selfName ? ' (this tab)' : ''),
    h('td', { class: 'elapsed', dataset: { since: row.since ?? '' } }))) : [h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No locks held or requested.'))]));
    tick();
  }
  // The timer only rewrites the elapsed times.
  function tick() {
    const now = Date.now();
    for (const cell of body.querySelectorAll('td.elapsed')) cell.textContent = formatElapsed(cell.dataset.since ? Number(cell.dataset.since) : null, now);
  }
  return { element, update(newRows) { rows = newRows; render(); }, tick };
}
