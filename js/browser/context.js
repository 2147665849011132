// This context's connection to the lock space: which way it reaches the hub, and its LockManager.
//   window, iframe, or any scope with SharedWorker -> the origin's hub (a SharedWorker)
//   dedicated worker                              -> a port from the context that created it
//   anything else (service worker, app shared worker, no SharedWorker) -> a hub in this context
// A hub that cannot be reached because of how the app was deployed (hub script missing, wrong
// WEBLOCKS_HUB_URL, a creator without the polyfill) fails every request with a NotSupportedError
// that says what to fix: an engine per context would silently stop excluding other tabs.
import { createLockManager, opaqueOriginError } from '../api/lock-manager.js';
import { HUB_NAME } from '../hub/protocol.js';
import { HubBackend } from './hub-backend.js';
import { Sentinel, sentinelWorkerFor, isWebKit } from './sentinel.js';
import { AliveDatabase, indexedDBOf } from './alive-database.js';
import { HeldMarker } from './held-marker.js';
import { sentinelUrlOf, startScript } from './script-urls.js';
import { localHubPort, loadInContextHub } from './local-hub.js';
import { patchWorkerConstructor, listenForParentPorts, portFromParent, takeCreatorMark, askEarly, earlyPortNow, keepEarlyPort } from './worker-ports.js';
import { diagnoseHubScript } from './diagnose.js';
import { bfcacheRule, contextOutstanding } from './bfcache.js';
import { watchSharedWorkers } from './shared-worker-busy.js';
import { FrameBackend, embedderOf, serveFrames } from './frame-backend.js';

export function contextKind(scope = globalThis) {
  if (typeof scope.DedicatedWorkerGlobalScope === 'function' && scope instanceof scope.DedicatedWorkerGlobalScope) return 'dedicated-worker';
  if (typeof scope.SharedWorkerGlobalScope === 'function' && scope instanceof scope.SharedWorkerGlobalScope) return 'shared-worker';
  if (typeof scope.ServiceWorkerGlobalScope === 'function' && scope instanceof scope.ServiceWorkerGlobalScope) return 'service-worker';
  if (typeof scope.Window === 'function' && scope instanceof scope.Window) return 'window';
  return 'other';
}

/** The hub's SharedWorker name (and announcement channel) of a lock space: the default, or a storage bucket's. */
export function hubNameOf(space) {
  return space === null ? HUB_NAME : `${HUB_NAME}:bucket:${space}`;
}

/**
 * The backend for this context. Options: hubUrl (the hub script), forceLocal (skip the hub: tests,
 * or apps that want per-context locks), requireHub (where the platform offers no hub, fail every
 * request instead of using an in-context engine), space (null, or a storage bucket's name: a lock
 * space of its own, served by a hub of its own), scope (the global, for tests).
 * @param {{ hubUrl?: string, forceLocal?: boolean, requireHub?: boolean, space?: string | null, scope?: any }} [options]
 */
export function createContextBackend({ hubUrl, forceLocal = false, requireHub = false, space = null, scope = globalThis } = {}) {
  const kind = contextKind(scope);
  // A same-origin frame of a page that runs the polyfill speaks through its embedder (frame-backend.js).
  const framesHub = kind === 'window' && space === null && !forceLocal && hubUrl !== undefined
    && typeof scope.SharedWorker === 'function' ? absoluteUrl(scope, hubUrl) : null;
  const embedder = framesHub === null ? null : embedderOf(scope, framesHub);
  if (embedder !== null) {
    const frame = new FrameBackend(embedder, scope);
    scope.addEventListener('pagehide', (event) => frame.pageHidden(event.persisted));
    return frame;
  }
  const hubName = hubNameOf(space);
  let backend;
  let connect;
  let connectNow = null; // a port at hand, for the first connection (a worker's early port)
  let identify = null; // a fresh connection to the origin-wide hub, to learn which hub serves it now
  let remakeEarly = null; // a window's port made before its first request, made again
  // The platform offers no hub here: an in-context engine, said once, or an error when required.
  // The fallback's script is loaded at once (a service worker may load it only now).
  const inContext = (reason) => {
    if (requireHub) return () => { throw noHubHere(reason); };
    loadInContextHub(scope);
    return () => localHubPort(reason, space, scope);
  };
  if (typeof globalThis.MessageChannel !== 'function') {
    const error = notABrowser();
    connect = () => { throw error; };
  } else if (forceLocal) {
    loadInContextHub(scope);
    connect = () => localHubPort('asked for an in-context engine', space, scope);
  } else if (typeof scope.SharedWorker === 'function') {
    // A port the browser refused because the running hub was asked for the other way (startHub):
    // the connection it served is made again, the other way.
    const refused = (port) => { if (backend.port === port) backend.portRefused(); else remakeEarly?.(); };
    connect = () => sharedWorkerPort(scope, hubUrl, hubName, backend, requireHub, space, refused);
    identify = () => startHub(scope, hubUrl, hubName).worker.port;
    // A window connects before its first request: the SharedWorker's `connect` event comes through
    // the browser process (WebKit delivered it after a connected tab's later message in 4 runs of
    // 8), so a port made at the first request let another tab's later request reach the hub first.
    // Made early, the hub has it long before, and the first request's hello goes on it. Kept as a
    // worker's early port is (worker-ports.js: unused once 10 s old). Made once the document has
    // been parsed, not while it is: Chromium fired no `error` for a hub script that 404s when its
    // SharedWorker was made during parsing, in 4 runs of 75 (the failure then showed only when
    // the hub was found silent, 2.5 s later). If it cannot be made (Trusted Types), the first
    // request makes its own and says why.
    if (kind === 'window' && space === null && hubUrl !== undefined) {
      connectNow = earlyPortNow;
      const early = () => {
        if (backend.port !== null || backend.connecting !== null || backend.hubId !== null) return; // the first request came first
        try { keepEarlyPort(connect()); } catch { /* said at the first request */ }
      };
      remakeEarly = early;
      if (scope.document?.readyState === 'loading') scope.document.addEventListener('DOMContentLoaded', early, { once: true });
      else queueMicrotask(early);
    }
  } else if (kind === 'dedicated-worker') {
    if (takeCreatorMark(scope)) {
      listenForParentPorts(scope);
      if (space === null) { askEarly(scope); connectNow = earlyPortNow; }
      connect = () => portFromParent(scope, space, { early: space === null });
      identify = () => portFromParent(scope, space);
    } else {
      const error = creatorWithoutPolyfill(scope);
      connect = () => { throw error; };
    }
  } else {
    connect = inContext(`no SharedWorker in this ${kind} context`);
  }
  // Contexts of the origin-wide hub hear its announcements (the fallback's hub is not origin-wide).
  const viaHub = !forceLocal && (typeof scope.SharedWorker === 'function' || kind === 'dedicated-worker');
  const announcements = viaHub && typeof scope.BroadcastChannel === 'function' ? new scope.BroadcastChannel(hubName) : null;
  // The sentinel answers the hub for this context while its event loop is busy (sentinel.js).
  const sentinelWorker = viaHub ? sentinelWorkerFor(scope, kind) : null;
  const sentinel = sentinelWorker === null ? null
    : new Sentinel(sentinelWorker.Worker, sentinelUrlOf(hubUrl, scope), () => backend.hubSilent(), { shared: sentinelWorker.shared, scope, channel: hubName, onFail: () => backend.vouch(), onAnswer: () => backend.vouch() });
  // A window's crash reaches the hub through its alive database where IndexedDB allows one
  // (alive-database.js); where it has no sentinel, the hub could not confirm a crash, so none.
  const aliveDatabase = sentinel !== null && kind === 'window' ? new AliveDatabase(scope, () => backend.sendAlive()) : null;
  // What the next hub waits for if this context is busy when its hub dies and it has no sentinel.
  const heldMarker = viaHub ? new HeldMarker(indexedDBOf(scope)) : null;
  const outstanding = viaHub || kind === 'shared-worker' ? contextOutstanding(scope, kind, kind !== 'dedicated-worker' || takeCreatorMark(scope)) : null;
  backend = new HubBackend(connect, { announcements, identify, sentinel, aliveDatabase, heldMarker, connectNow, outstanding, bfcacheRule: bfcacheRule(scope), confirmReleases: isWebKit(scope) });
  if (kind === 'dedicated-worker' && typeof scope.close === 'function') {
    // A worker that closes itself exits cleanly: say bye first, as a page does on pagehide.
    const nativeClose = scope.close;
    scope.close = function close() {
      backend.pageHidden(false);
      return nativeClose.call(this);
    };
  }
  if (framesHub !== null) serveFrames(scope, framesHub, backend);
  if (kind === 'window') {
    // A removed iframe's (or navigated-away) Document has no browsing context any more.
    /** @type {any} (a window's hook: HubBackend does not declare it) */ (backend).isFullyActive = () => scope.document?.defaultView !== null;
    scope.addEventListener('pagehide', (event) => backend.pageHidden(event.persisted));
    scope.addEventListener('pageshow', (event) => { if (event.persisted) backend.pageShown(); });
  }
  return backend;
}

// Chromium (148+) keeps a SharedWorker made with `extendedLifetime` running after its last page
// unloads: the hub outlives a reload of the only tab, which then finds it running instead of
// waiting for a new one (docs/browser.md, "The hub's lifetime"). Engines without the option ignore it. A
// worker asked for with another setting than the running one's gets `error` (measured in Chromium,
// both ways): a page that asks otherwise (another version of this package) started the hub. The
// context then asks the other way from then on, and connects again at once, unless that way was
// refused just now too (then the script or the browser is at fault: said as before).
const LIFETIME_RETRY_WINDOW = 5000;
// scope -> `${hub name}`: when each setting was last refused, [plain, extended] (ms). The one asked
// for is the one refused longer ago (extended, on a tie: neither ever was).
const hubRefusals = new WeakMap();

/** The hub's SharedWorker; `worthAnotherTry()` after its `error`: the other setting may serve. */
function startHub(scope, hubUrl, hubName) {
  const byName = hubRefusals.get(scope) ?? new Map();
  hubRefusals.set(scope, byName);
  const refusedAt = byName.get(hubName) ?? [-Infinity, -Infinity];
  byName.set(hubName, refusedAt);
  const extended = refusedAt[1] <= refusedAt[0];
  // A browser that knows the option reads it (WebIDL reads a dictionary's members); one that does
  // not (Firefox, WebKit, Chromium before 148) refuses nothing for it: no second try there.
  let known = false;
  const options = { name: hubName, get extendedLifetime() { known = true; return extended; } };
  const worker = startScript(scope, scope.SharedWorker, hubUrl, options);
  worker.addEventListener('error', () => { if (known) refusedAt[+extended] = Date.now(); });
  return { worker, worthAnotherTry: () => known && Date.now() - refusedAt[+!extended] > LIFETIME_RETRY_WINDOW };
}

function sharedWorkerPort(scope, hubUrl, hubName, backend, requireHub, space, refused) {
  if (hubUrl === undefined) throw new DOMException('No hub URL: set globalThis.WEBLOCKS_HUB_URL before the polyfill runs (its source was injected inline).', 'NotSupportedError');
  const { worker, worthAnotherTry } = startHub(scope, hubUrl, hubName);
  worker.addEventListener('error', async () => {
    if (worthAnotherTry()) { refused(worker.port); return; }
    // The script did not start. Either the deployment is wrong (missing script, wrong URL, not
    // JavaScript): every request fails, naming the fix. Or the script is fine and the browser
    // refuses SharedWorkers here (Chromium in cross-site iframes when third-party storage is
    // blocked): the platform offers no hub, so an in-context engine, said once (or, with
    // requireHub, an error).
    if (backend.hubId !== null) return;
    const problem = await diagnoseHubScript(scope, new URL(hubUrl, scope.document?.baseURI ?? scope.location?.href).href);
    if (backend.hubId !== null) return;
    if (problem !== null) {
      backend.fail(new DOMException(problem, 'NotSupportedError'));
      return;
    }
    const reason = `the browser refused to start the lock hub ${hubUrl} in this context (the script itself loads)`;
    if (requireHub) backend.fail(noHubHere(reason));
    else backend.switchTo(() => localHubPort(reason, space, scope));
  });
  return worker.port;
}

function absoluteUrl(scope, url) {
  try { return new URL(url, scope.document?.baseURI ?? scope.location?.href).href; } catch { return String(url); }
}

function noHubHere(reason) {
  return new DOMException(`Web Locks: ${reason}, and requireHub (WEBLOCKS_REQUIRE_HUB) forbids an engine that would not exclude other tabs. Use navigator.locks from a window or dedicated worker that can reach the hub.`, 'NotSupportedError');
}

// Every browser context has MessageChannel; a DOM emulation in a Node test runner (jest's jsdom
// environment asks for the "browser" export condition) may not.
function notABrowser() {
  return new DOMException('Web Locks: this is the browser build of weblocks-wasm, loaded where there is no MessageChannel '
    + '(a DOM emulation such as jsdom in a Node test runner?). In jest or vitest, put weblocks-wasm/test-setup in setupFiles '
    + "(it installs the Node build's navigator.locks), or set testEnvironmentOptions: { customExportConditions: ['node'] } "
    + 'to import the Node build.', 'NotSupportedError');
}

function creatorWithoutPolyfill(scope) {
  const url = scope.location?.href ?? 'this worker';
  return new DOMException(`Web Locks: the dedicated worker ${url} cannot reach the lock hub: the page or worker that created it does not load the weblocks polyfill, so it cannot hand this worker a port. Load weblocks-polyfill.js in the creating context before it calls new Worker().`, 'NotSupportedError');
}

/**
 * Whether this context's origin is opaque (a sandboxed frame without allow-same-origin, a data:
 * URL, their workers): `self.origin`, the settings object's origin, serializes as "null" then.
 * location.origin would not do: it is the URL's origin, which a sandbox does not change.
 */
export function isOpaqueOrigin(scope = globalThis) {
  return scope.origin === 'null';
}

/** A LockManager for this context, on its backend. The origin is looked at once: it never changes. */
export function createContextLocks(options) {
  const opaqueOrigin = isOpaqueOrigin(options?.scope ?? globalThis);
  // An opaque origin has no lock space (its LockManager rejects before asking): nothing is started
  // for it, no hub, sentinel or database; the workers it creates are refused a port with the same
  // SecurityError (HubBackend.adopt).
  const backend = opaqueOrigin ? new HubBackend(null) : createContextBackend(options);
  if (opaqueOrigin) backend.failure = opaqueOriginError();
  return { backend, locks: createLockManager(backend, { opaqueOrigin }) };
}

let shared = null;
const bucketSpaces = new Map(); // bucket name -> { backend, locks }

/** The one LockManager of this context (the polyfill and the ponyfill share it). */
export function contextLocks(options) {
  if (shared === null) {
    shared = createContextLocks(options);
    const scope = options?.scope ?? globalThis;
    // The workers this context creates ask for ports to the default space or to a bucket's.
    const outstanding = contextOutstanding(scope, contextKind(scope), contextKind(scope) !== 'dedicated-worker' || takeCreatorMark(scope));
    patchWorkerConstructor(scope, (space) => (space === null ? shared : bucketLocks(space, options)).backend, outstanding);
    // Under Firefox's rule a window also counts the app shared workers it connects to.
    if (outstanding !== null && contextKind(scope) === 'window') watchSharedWorkers(scope, outstanding);
  }
  return shared;
}

/** The LockManager of a storage bucket's lock space in this context (one per bucket name). */
export function bucketLocks(name, options) {
  if (!bucketSpaces.has(name)) bucketSpaces.set(name, createContextLocks({ ...options, space: name }));
  return bucketSpaces.get(name);
}
