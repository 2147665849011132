// Entry of the whole classic polyfill (build/dist/weblocks-polyfill-sync.js), for <script src> and
// importScripts() where it must be there at once (service workers, pages that need it so), and
// the rest that the classic loader (classic-loader.js, weblocks-polyfill.js) loads where needed.
// The hub script and the wasm files sit next to it: their URLs come from this script's own URL,
// or, when its source was injected inline, from globalThis.WEBLOCKS_HUB_URL (set it before the
// script runs).
import { setAssetBase } from '../engine/assets.js';
import { install } from './install.js';
import { prepareContext } from './worker-patch.js';
import { ownScriptUrl, classicBase } from './own-script-url.js';

const scriptUrl = ownScriptUrl();
const base = classicBase(scriptUrl);
if (base !== null) setAssetBase(base);
const hubUrl = globalThis.WEBLOCKS_HUB_URL !== undefined ? base : (scriptUrl !== null ? new URL('weblocks-hub.js', scriptUrl).href : undefined);
install({ hubUrl, prepare: prepareContext });
