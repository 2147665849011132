// The per-context controls: a request form and the list of this context's requests with
// Abort (pending) and Release (held) buttons. The same panel drives a tab and its workers.
import { h, formatElapsed } from './dom.js';

export function createControls({ title, testid, onRequest, onAbort, onRelease, extraButtons = [] }) {
  const nameInput = h('input', { value: 'resource', size: 14, 'aria-label': 'lock name', dataset: { testid: 'lock-name' } });
  const modeSelect = h('select', { 'aria-label': 'mode', dataset: { testid: 'lock-mode' } },
    h('option', { value: 'exclusive' }, 'exclusive'), h('option', { value: 'shared' }, 'shared'));
  const ifAvailable = h('input', { type: 'checkbox', dataset: { testid: 'if-available' } });
  const steal = h('input', { type: 'checkbox', dataset: { testid: 'steal' } });
  const timeout = h('input', { type: 'number', min: 0, step: 100, value: '', placeholder: 'none', class: 'timeout', 'aria-label': 'timeout in ms', dataset: { testid: 'timeout' } });
  const list = h('ul', { class: 'requests', dataset: { testid: 'requests' } });

  const form = h('form', {
    class: 'request-form',
    onsubmit: (event) => {
      event.preventDefault();
      onRequest({
        name: nameInput.value, mode: modeSelect.value, ifAvailable: ifAvailable.checked,
        steal: steal.checked, timeoutMs: Number(timeout.value) || 0,
      });
    },
  },
  h('label', {}, 'name ', nameInput), h('label', {}, 'mode ', modeSelect),
  h('label', {}, ifAvailable, ' ifAvailable'), h('label', {}, steal, ' steal'),
  h('label', { title: 'AbortSignal.timeout(ms)' }, 'timeout ', timeout, ' ms'),
  h('button', { type: 'submit', dataset: { testid: 'request' } }, 'Request'));

  const element = h('section', { class: 'panel controls', dataset: { testid } },
    h('h3', {}, title, ...extraButtons), form, list);

  // Items are rebuilt only when their state changes, so buttons stay put while the timer ticks.
  const items = new Map(); // request id -> { li, key, elapsed, entry }
  function update(entries) {
    const newestFirst = [...entries].reverse();
    for (const [id, item] of items) {
      if (entries.some((entry) => entry.id === id)) continue;
      item.li.remove();
      items.delete(id);
    }
    for (const entry of newestFirst) {
      const key = `${entry.state}|${entry.since}|${entry.error?.message}`;
      const item = items.get(entry.id);
      if (item?.key === key) continue;
      const built = buildItem(entry);
      if (item) item.li.replaceWith(built.li);
      items.set(entry.id, { ...built, key, entry });
    }
    const order = newestFirst.map((entry) => items.get(entry.id).li);
    if (order.some((li, index) => list.children[index] !== li)) list.replaceChildren(...order);
    tick();
  }

  function buildItem(entry) {
    const elapsed = ['held', 'pending'].includes(entry.state) ? h('span', { class: 'elapsed' }) : null;
    const li = h('li', {
      class: `request state-${entry.state.replace(/ /g, '-')}`,
      dataset: { testid: 'request-entry', requestId: String(entry.id), state: entry.state, lock: entry.name },
    },
    h('span', { class: 'badge' }, entry.state),
    h('code', {}, entry.name), ` ${entry.mode}`, describeOptions(entry.options), elapsed,
    entry.state === 'pending' && !entry.options.ifAvailable && !entry.options.steal
      ? h('button', { onclick: () => onAbort(entry.id), dataset: { testid: 'abort' } }, 'Abort') : null,
    entry.state === 'held' ? h('button', { onclick: () => onRelease(entry.id), dataset: { testid: 'release' } }, 'Release') : null,
    entry.error ? h('div', { class: 'error', dataset: { testid: 'error' } }, `${entry.error.name}: ${entry.error.message}`) : null);
    return { li, elapsed };
  }

  function tick() {
    const now = Date.now();
    for (const { elapsed, entry } of items.values()) if (elapsed) elapsed.textContent = ` for ${formatElapsed(entry.since, now)}`;
  }

  return { element, update, tick };
}

function describeOptions({ ifAvailable, steal, timeoutMs }) {
  const parts = [ifAvailable && 'ifAvailable', steal && 'steal', timeoutMs > 0 && `timeout ${timeoutMs} ms`].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}
