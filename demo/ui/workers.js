// Dedicated workers started from this tab: each gets a controls panel here; its locks show up in
// every tab's table like any other context's.
import { h } from './dom.js';
import { createControls } from './controls.js';

export function createWorkerPanels({ implementation, parentName, nextNumber, onTerminate = () => {} }) {
  const container = h('div', { class: 'workers' });
  const panels = new Set();

  async function start() {
    const url = new URL('../worker.js', import.meta.url);
    url.searchParams.set('number', String(await nextNumber()));
    url.searchParams.set('impl', implementation);
    url.searchParams.set('parent', parentName);
    const worker = new Worker(url, { type: 'module' });
    const terminate = h('button', { class: 'inline', dataset: { testid: 'worker-terminate' }, onclick: () => stop() }, 'Terminate');
    const controls = createControls({
      title: 'Worker (starting...) ', testid: 'worker-controls', extraButtons: [terminate],
      onRequest: (options) => worker.postMessage({ type: 'request', options }),
      onAbort: (id) => worker.postMessage({ type: 'abort', id }),
      onRelease: (id) => worker.postMessage({ type: 'release', id }),
    });
    const panel = { worker, controls };
    panels.add(panel);
    container.append(controls.element);
    worker.onmessage = ({ data }) => {
      if (data.type === 'ready') {
        controls.element.dataset.worker = data.name;
        controls.element.querySelector('h3').firstChild.textContent = `${data.name} (a dedicated worker of this tab) `;
        const { kind, hub } = data.facts;
        controls.element.querySelector('h3').after(h('p', { class: 'muted small', dataset: { testid: 'worker-implementation', kind } },
          kind === 'native' ? 'Runs on native navigator.locks.' : `Runs on the polyfill; hub: ${hub} (through a port from this tab).`));
      }
      if (data.type === 'book') controls.update(data.entries);
      if (data.type === 'lost') controls.element.append(h('div', { class: 'error' }, `Its name lock was broken (${data.error.name}: ${data.error.message}); it is taking it back.`));
      if (data.type === 'failed') controls.element.append(h('div', { class: 'error', dataset: { testid: 'error' } }, `${data.error.name}: ${data.error.message}`));
    };
    worker.onerror = (event) => controls.element.append(h('div', { class: 'error', dataset: { testid: 'error' } }, `Worker error: ${event.message ?? 'failed to load'}`));
    function stop() {
      if (controls.element.dataset.worker) onTerminate(controls.element.dataset.worker);
      worker.terminate(); // no goodbye: its locks are freed by the lock manager, as for a crash
      panels.delete(panel);
      controls.element.remove();
    }
  }

  return { element: container, start, tick: () => panels.forEach((panel) => panel.controls.tick()) };
}
