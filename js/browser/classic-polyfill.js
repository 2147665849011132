// Entry of the classic polyfill bundle (build/dist/weblocks-polyfill.js), for <script src> and
// importScripts(). The hub script and the wasm files sit next to it: their URLs come from this
// script's own URL, or, when its source was injected inline, from globalThis.WEBLOCKS_HUB_URL
// (set it before the script runs).
import { setAssetBase } from '../engine/assets.js';
import { install } from './install.js';

function ownScriptUrl() {
  const current = /** @type {HTMLScriptElement | null | undefined} (an SVG script has no src: skipped alike) */ (globalThis.document?.currentScript);
  if (current && current.src) return current.src;
  // importScripts(): no currentScript; the first frame of a stack trace is this script.
  const stack = String(new Error().stack ?? '');
  const match = stack.match(/((?:https?|blob|file|chrome-extension):[^\s)]+?):\d+:\d+/);
  if (match && !/^blob:/.test(match[1]) && match[1] !== globalThis.location?.href) return match[1];
  return null;
}

const configuredHub = globalThis.WEBLOCKS_HUB_URL;
const scriptUrl = ownScriptUrl();
// A relative WEBLOCKS_HUB_URL resolves as a script src would: against the document's base URL
// (in about:blank and srcdoc frames, the one inherited from their creator; location.href is
// about:...), or a worker's own URL.
const baseOfRelative = globalThis.document?.baseURI ?? globalThis.location?.href;
const base = configuredHub !== undefined ? new URL(String(configuredHub), baseOfRelative).href : scriptUrl;
if (base !== null) setAssetBase(base);
const hubUrl = configuredHub !== undefined ? base : (scriptUrl !== null ? new URL('weblocks-hub.js', scriptUrl).href : undefined);
install({ hubUrl });
