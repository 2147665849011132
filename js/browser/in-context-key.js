// Where the in-context fallback bundle leaves its entry point for the polyfill (a registered
// symbol: the two are separate bundles).
export const IN_CONTEXT_KEY = Symbol.for('weblocks-wasm.in-context-hub');
