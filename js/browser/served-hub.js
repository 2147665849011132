// The "browser" export condition (bundlers: Vite, webpack, esbuild, Rollup with browser: true): a
// bundle cannot carry the hub, whose URL must never change across deploys (a SharedWorker is
// identified by URL + name). The app serves the package's build/dist/ files at /weblocks/
// (README, "Bundlers"); WEBLOCKS_HUB_URL, set before the bundle runs, moves them.
export const SERVED_HUB_PATH = '/weblocks/weblocks-hub.js';

export const servedHubUrl = () => new URL(SERVED_HUB_PATH, globalThis.location?.href).href;
