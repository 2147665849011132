// The URL of the classic script running now (the classic bundles find the files next to them by
// it): its <script> element's src, or, under importScripts() (no currentScript), the first frame
// of a stack trace; null when its source was injected inline. A bundle import()ed by the classic
// loader runs as a module (no currentScript): the loader hands it its own URL (same folder).
// Written for size (the classic loader's budget): no ?? or ?.
export const LOADER_URL = Symbol.for('weblocks-wasm.loader-url');

export function ownScriptUrl() {
  const scope = globalThis;
  const current = /** @type {HTMLScriptElement | null | undefined} (an SVG script has no src: skipped alike) */ (scope.document && scope.document.currentScript);
  if (current && current.src) return current.src;
  if (scope[LOADER_URL]) return scope[LOADER_URL];
  const match = /((?:https?|file):[^\s)]+?):\d+:\d+/.exec(Error().stack);
  return match && match[1] !== scope.location.href ? match[1] : null;
}

/**
 * The folder the classic bundles are served from, as a URL in it: WEBLOCKS_HUB_URL's if set (a
 * relative one resolves as a script src would: against the document's base URL, which about:blank
 * and srcdoc frames inherit; or a worker's own URL), else this script's; null if neither is known.
 */
export function classicBase(scriptUrl) {
  const scope = globalThis;
  const configured = scope.WEBLOCKS_HUB_URL;
  return configured === undefined ? scriptUrl : new URL(configured, scope.document ? scope.document.baseURI : scope.location.href).href;
}
