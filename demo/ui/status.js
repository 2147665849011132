// The line that says which implementation is active, with the switch to force the polyfill.
import { h } from './dom.js';

export function createStatusLine({ describe, requested, error }) {
  const link = (impl, text) => {
    const url = new URL(location.href);
    if (impl === 'auto') url.searchParams.delete('impl'); else url.searchParams.set('impl', impl);
    return h('a', { href: url.href, dataset: { testid: `switch-${impl}` }, class: requested === impl ? 'current' : '' }, text);
  };
  const text = h('span', { dataset: { testid: 'implementation' } });
  const element = h('p', { class: 'status' }, h('strong', {}, 'Running on: '), text, h('br'),
    h('span', { class: 'switches' }, 'Switch: ', link('auto', 'automatic'), ' · ', link('native', 'native'), ' · ', link('polyfill', 'force the polyfill'), ' · ', link('remote', 'across browsers (lock server)'),
      ' (every context must use the same one: native locks and the polyfill are separate lock spaces)'));

  function refresh() {
    if (!describe) {
      text.dataset.kind = 'none';
      element.classList.add('bad');
      text.textContent = `no lock implementation: ${error.name}: ${error.message}`;
      return;
    }
    const facts = describe();
    text.dataset.kind = facts.kind;
    text.dataset.hub = facts.hubState ?? '';
    const parts = facts.kind === 'native'
      ? ['native navigator.locks (the browser\'s own)']
      : facts.kind === 'remote'
        ? [`the demo server's lock server (weblocks-wasm/remote): one lock space for every browser and device that opens ?impl=remote; this is ${facts.browser}`]
      : ['polyfill (weblocks-wasm)', `hub: ${facts.hub}`,
        'engine memory: not shared with this context (the engine lives in the hub; contexts reach it over MessagePorts)'];
    parts.push(`page ${facts.crossOriginIsolated ? 'is' : 'is not'} cross-origin isolated`, `native locks ${facts.nativeAvailable ? 'available' : 'absent'} here`);
    const line = parts.join(' · ');
    if (text.textContent !== line) text.textContent = line;
  }
  refresh();
  return { element, refresh };
}
