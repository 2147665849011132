// The scripts the polyfill starts (the hub, each context's sentinel) and how it starts them on a
// page that enforces Trusted Types (`require-trusted-types-for 'script'`): there `new Worker(url)`
// and `new SharedWorker(url)` take only a TrustedScriptURL, so the polyfill makes its URLs through
// a policy of its own, named TRUSTED_TYPES_POLICY. A page that also lists allowed policies
// (`trusted-types ...`) must list it: `trusted-types weblocks`. The policy makes URLs of this
// origin only (a SharedWorker or Worker script is same-origin anyway), and no code outside this
// module can call it.

export const TRUSTED_TYPES_POLICY = 'weblocks';

/** The sentinel script (build/dist/weblocks-sentinel.js) is served next to the hub, like the wasm files. */
export function sentinelUrlOf(hubUrl, scope = globalThis) {
  if (hubUrl === undefined || hubUrl === null) return null;
  return new URL('weblocks-sentinel.js', new URL(String(hubUrl), scope.document?.baseURI ?? scope.location?.href)).href;
}

const policies = new WeakMap(); // scope -> { policy } | { error }

function policyOf(scope) {
  if (!policies.has(scope)) {
    try {
      // The settings object's origin (self.origin): an about:blank or srcdoc frame has its creator's.
      const origin = scope.origin ?? scope.location?.origin;
      const policy = scope.trustedTypes.createPolicy(TRUSTED_TYPES_POLICY, {
        createScriptURL(url) {
          // Resolved as the browser resolves a worker's URL: against the document's base URL.
          const parsed = new URL(url, scope.document?.baseURI ?? scope.location?.href);
          if (parsed.origin !== origin) throw new TypeError(`the ${TRUSTED_TYPES_POLICY} policy makes script URLs of this origin only, not ${parsed.href}`);
          return parsed.href;
        },
      });
      policies.set(scope, { policy });
    } catch (error) {
      // Not allowed by the page's `trusted-types` directive, or made already (a second copy of
      // the polyfill): plain URLs, which work unless Trusted Types are enforced (then start() says so).
      policies.set(scope, { error });
    }
  }
  return policies.get(scope);
}

/** `url` as the page's Trusted Types want it: a TrustedScriptURL where the API exists, else the string. */
export function trustedScriptUrl(scope, url) {
  if (typeof scope.trustedTypes?.createPolicy !== 'function') return String(url);
  const { policy } = policyOf(scope);
  return policy ? policy.createScriptURL(String(url)) : String(url);
}

/**
 * `new Constructor(url, options)` for a script of the polyfill's (Worker or SharedWorker). A page
 * that enforces Trusted Types without allowing the polyfill's policy gets a NotSupportedError that
 * names the fix, not the browser's bare TypeError.
 */
export function startScript(scope, Constructor, url, options) {
  try {
    return new Constructor(trustedScriptUrl(scope, url), options);
  } catch (error) {
    // Chromium: "This document requires 'TrustedScriptURL' assignment"; Firefox: "Sink type
    // mismatch violation blocked by CSP"; a TypeError either way, where the policy could not be made.
    const refusedByTrustedTypes = error?.name === 'TypeError' && (/trusted|sink type/i.test(String(error?.message)) || policyOf(scope).error !== undefined);
    if (!refusedByTrustedTypes) throw error;
    const why = policyOf(scope).error;
    throw new DOMException(`Web Locks: this page enforces Trusted Types, and the polyfill could not make a TrustedScriptURL for ${url}`
      + `${why ? ` (its policy "${TRUSTED_TYPES_POLICY}" was refused: ${why.message})` : ''}. `
      + `Allow the policy in the page's Content-Security-Policy: trusted-types ${TRUSTED_TYPES_POLICY} (beside your own policies). Browser's error: ${error.message}`, 'NotSupportedError');
  }
}
