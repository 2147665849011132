// A window global for createContextBackend in Node (js/browser/context.js): its SharedWorker
// constructor is the test's, and its document is parsed already unless `readyState` is 'loading'.
export function fakeWindow(SharedWorker, { readyState = 'complete', ...more } = {}) {
  class Window {}
  const scope = new Window();
  Object.assign(scope, {
    Window, SharedWorker, navigator: {}, location: { href: 'http://app.test/page.html' }, addEventListener() {}, ...more,
  });
  const parsed = [];
  scope.document = {
    baseURI: scope.location.href, defaultView: scope, readyState,
    addEventListener(type, listener) { if (type === 'DOMContentLoaded') parsed.push(listener); },
  };
  /** The document's parsing ends (DOMContentLoaded). */
  const finishParsing = () => { scope.document.readyState = 'interactive'; for (const listener of parsed.splice(0)) listener(); };
  return { scope, finishParsing };
}
