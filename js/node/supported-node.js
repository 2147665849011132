// The Node versions this package supports (package.json "engines"): ^20.19.0 || >=22.12.0. On an
// older Node the engine could not even be read (no process.getBuiltinModule), so refuse at import
// with the fix, instead of failing every request later with an unrelated error.
const [major, minor] = process.versions.node.split('.').map(Number);
if (!(major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19))) {
  const error = new Error(`weblocks-wasm needs Node ^20.19.0 or >=22.12.0 (package.json "engines"); this is Node ${process.versions.node}. Upgrade Node.`);
  error.code = 'ERR_WEBLOCKS_UNSUPPORTED_NODE';
  throw error;
}
