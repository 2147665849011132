// A WebKit window's sentinel is a SharedWorker (js/browser/sentinel.js): in WebKit only. Chosen by
// the user agent; a Chromium taken for WebKit would run its window's sentinel in another process,
// which a stopped (SIGSTOP) tab would not stop: the tab would never be declared dead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isWebKit, sentinelWorkerFor } from '../../../js/browser/sentinel.js';

const agents = {
  'Chromium (headless, as the browser tests run it)': ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36', false],
  Chrome: ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36', false],
  'Edge (Chromium)': ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0', false],
  Firefox: ['Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0', false],
  'WebKitGTK MiniBrowser': ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15', true],
  'Chrome on iOS (WebKit)': ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0 Mobile/15E148 Safari/604.1', true],
};

for (const [browser, [userAgent, webkit]] of Object.entries(agents)) {
  test(`${browser} is ${webkit ? '' : 'not '}taken for WebKit`, () => {
    assert.equal(isWebKit({ navigator: { userAgent } }), webkit);
  });
}

test('which worker can be the sentinel: a SharedWorker in a WebKit window, none in a Firefox dedicated worker, else a dedicated worker', () => {
  class Worker {}
  class SharedWorker {}
  const scope = (userAgent) => ({ navigator: { userAgent }, Blob: class {}, Worker, SharedWorker });
  const [chromium] = agents['Chromium (headless, as the browser tests run it)'];
  const [webkit] = agents['WebKitGTK MiniBrowser'];
  const [firefox] = agents.Firefox;
  assert.deepEqual(sentinelWorkerFor(scope(webkit), 'window'), { Worker: SharedWorker, shared: true });
  assert.deepEqual(sentinelWorkerFor(scope(webkit), 'dedicated-worker'), { Worker, shared: false });
  assert.deepEqual(sentinelWorkerFor(scope(chromium), 'window'), { Worker, shared: false });
  assert.deepEqual(sentinelWorkerFor(scope(firefox), 'window'), { Worker, shared: false });
  assert.equal(sentinelWorkerFor(scope(firefox), 'dedicated-worker'), null);
  // The sentinel is a served script (weblocks-sentinel.js), not a blob: URL: no Blob needed; no Worker, no sentinel.
  assert.deepEqual(sentinelWorkerFor({ ...scope(chromium), Blob: undefined }, 'window'), { Worker, shared: false });
  assert.equal(sentinelWorkerFor({ ...scope(chromium), Worker: undefined }, 'window'), null);
});
