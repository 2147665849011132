// What to tell a deployer whose lock engine did not load: a Content-Security-Policy that forbids
// compiling WebAssembly, or a wasm file that is missing or mis-served. Browsers word the first
// differently (measured): Chromium "Refused to compile or instantiate WebAssembly module because
// 'unsafe-eval' is not an allowed source of script in the following Content Security Policy
// directive", Firefox "call to WebAssembly.compile() blocked by CSP", WebKit "Refused to create a
// WebAssembly object because 'unsafe-eval' or 'wasm-unsafe-eval' is not an allowed source of script".

/** True when `error` is a browser's refusal to compile WebAssembly under a Content-Security-Policy. */
export function forbiddenByPolicy(error) {
  return /Content.Security.Policy|\bCSP\b|wasm-unsafe-eval|unsafe-eval/i.test(String(error?.message ?? error));
}

/**
 * The sentence for a context (`who`: 'the lock hub', 'this page') whose engine did not load with
 * `error`: where a Content-Security-Policy forbade compiling it, the directive and whose response
 * (`policyOf`) needs it; otherwise `otherwise` (the missing or mis-served wasm file).
 */
export function engineLoadProblem(error, { who, policyOf, otherwise }) {
  if (!forbiddenByPolicy(error)) return otherwise;
  return `Web Locks: ${who} may not compile its lock engine: a Content-Security-Policy forbids WebAssembly there (${error?.message ?? String(error)}). `
    + `Add 'wasm-unsafe-eval' to the script-src of the policy served with ${policyOf} (no other response needs it).`;
}
