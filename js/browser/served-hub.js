// The "browser" export condition (bundlers: Vite, webpack, esbuild, Rollup with browser: true): a
// bundle cannot carry the hub, whose URL must never change across deploys (a SharedWorker is
// identified by URL + name). The app serves the package's build/dist/ files at /weblocks/
// (docs/browser.md, "Bundlers"); WEBLOCKS_HUB_URL, set before the bundle runs, moves them.
export const SERVED_HUB_PATH = '/weblocks/weblocks-hub.js';

// On this context's origin (not a <base> element's); about:blank and srcdoc frames have no origin
// in their URL: their base URL is their creator's.
export function servedHubUrl() {
  const location = globalThis.location;
  const base = location?.protocol === 'about:' ? globalThis.document?.baseURI : location?.href;
  return new URL(SERVED_HUB_PATH, base).href;
}
