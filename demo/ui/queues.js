// The per-name queue view: for each lock name, who holds it and who waits, in queue order.
// query() lists pending requests in the order of the lock manager's queues (spec: "the lock
// requests in the queue, in order"), so the order shown is the order they will be granted in
// (steal excepted).
import { h } from './dom.js';

export function createQueueView({ selfName }) {
  const list = h('div', { class: 'queues', dataset: { testid: 'queues' } });
  const element = h('section', { class: 'panel', dataset: { testid: 'queue-view' } },
    h('h2', {}, 'Queues by lock name'), list);

  function update(rows) {
    const byName = new Map();
    for (const row of rows) {
      if (row.bookkeeping) continue;
      if (!byName.has(row.name)) byName.set(row.name, { held: [], pending: [] });
      byName.get(row.name)[row.status === 'held' ? 'held' : 'pending'].push(row);
    }
    const who = (row) => `${row.contextName ?? `client ${row.clientId.slice(0, 8)}`}${row.contextName === selfName ? ' (you)' : ''}`;
    list.replaceChildren(...(byName.size ? [...byName].sort(([a], [b]) => a.localeCompare(b)).map(([name, { held, pending }]) => h('div', {
      class: 'queue', dataset: { testid: 'queue', lock: name },
    },
    h('code', { class: 'queue-name' }, name),
    h('span', { class: 'queue-held' }, held.length
      ? held.map((row) => h('span', { class: 'chip held', dataset: { testid: 'queue-holder', context: row.contextName ?? '' } }, `${who(row)} holds (${row.mode})`))
      : h('span', { class: 'muted' }, 'free')),
    pending.map((row, index) => h('span', { class: 'chip pending', dataset: { testid: 'queue-waiter', context: row.contextName ?? '', position: String(index + 1) } },
      `${index + 1}. ${who(row)} (${row.mode})`)))) : [h('p', { class: 'muted' }, 'No lock held or requested.')]));
  }

  return { element, update };
}
