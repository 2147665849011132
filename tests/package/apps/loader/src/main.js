// The loader app every bundler builds (issue 49): the polyfill alone, as most apps import it, and
// requests made in its first line. Where navigator.locks is native the bundle's entry is all the
// page loads; where it is missing, the rest is the chunk the bundler split off the import().
import 'weblocks-wasm/polyfill';

const installed = Symbol.for('weblocks-wasm.installed');
window.firstLine = { secure: window.isSecureContext, pending: navigator.locks === window[Symbol.for('weblocks-wasm.pending')] && window[installed] === undefined };
window.order = [];
window.appReady = Promise.all([
  navigator.locks.request('first', () => { window.order.push('first'); }),
  navigator.locks.request('first', () => { window.order.push('second'); }),
]).then(() => ({ ...window.firstLine, order: window.order, ours: navigator.locks === window[installed] }));
