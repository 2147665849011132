// The hub of an ES module entry: globalThis.WEBLOCKS_HUB_URL if set, else the entry's default. The
// engine's wasm files are served next to the hub (the in-context fallback loads them from there).
import { setAssetBase } from '../engine/assets.js';

export function locateHub(defaultHubUrl) {
  const configured = globalThis.WEBLOCKS_HUB_URL;
  // Against the document's base URL, as the classic polyfill does: about:blank and srcdoc frames
  // inherit their creator's.
  const base = globalThis.document?.baseURI ?? globalThis.location?.href;
  const hubUrl = configured !== undefined ? new URL(String(configured), base).href : defaultHubUrl;
  setAssetBase(hubUrl);
  return hubUrl;
}
