// Whether the polyfill replaces a built-in navigator.locks. Node 24 and 26 ship one that does not
// conform across threads (DESIGN.md, measured: a cross-thread steal aborts the process, query()
// shows the calling thread only, a lock whose callback throws synchronously is held forever), so
// it is replaced by default, as core-js replaces a native implementation known not to conform.
// Every Node up to 26 with a built-in is treated so; a later Node's built-in is kept until it is
// measured (add it here if it is still defective).
const LAST_DEFECTIVE_MAJOR = 26;

/** True when this Node's built-in navigator.locks is known not to conform across threads. */
export function builtinKnownDefective(version = process.versions.node) {
  const major = Number.parseInt(String(version).split('.')[0], 10);
  return Number.isInteger(major) && major <= LAST_DEFECTIVE_MAJOR;
}

/**
 * The decision for a built-in that is present: 'replace' or 'keep'.
 * Opt-outs: WEBLOCKS_KEEP_BUILTIN=1 in the environment, or globalThis.WEBLOCKS_FORCE = false
 * before the import; globalThis.WEBLOCKS_FORCE = true (or install({ force: true })) always replaces.
 * @param {{ force?: boolean }} [options]
 */
export function builtinDecision({ force } = {}) {
  if (force === true) return 'replace';
  if (force === false) return 'keep';
  if (process.env.WEBLOCKS_KEEP_BUILTIN === '1') return 'keep';
  return builtinKnownDefective() ? 'replace' : 'keep';
}
