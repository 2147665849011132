// The runtimes this package supports: Node ^20.19.0 || >=22.12.0 (package.json "engines"), Deno 2.6
// and Bun 1.4 (both run the Node host through their Node compatibility; they report a Node
// version of their own choosing, which says nothing about what they can do). Deno before 2.6 does
// not say when a worker thread has ended (no process 'worker' event before 2.4, no 'exit' for a
// worker that crashed before 2.6), so a dead thread's locks would stay held. On an older Node the
// engine could not even be read (no process.getBuiltinModule), so refuse at import with the fix,
// instead of failing every request later with an unrelated error.
const { node, deno, bun } = process.versions;

function refuse(message) {
  /** @type {Error & { code?: string }} */
  const error = new Error(message);
  error.code = 'ERR_WEBLOCKS_UNSUPPORTED_NODE';
  throw error;
}

const numbers = (version) => String(version).split('.').map(Number);
if (deno !== undefined) {
  const [major, minor] = numbers(deno);
  if (major < 2 || (major === 2 && minor < 6)) {
    refuse(`weblocks-wasm needs Deno 2.6 or later (earlier ones do not say when a worker thread ends, so its locks would stay held); this is Deno ${deno}. Upgrade Deno.`);
  }
} else if (bun !== undefined) {
  const [major, minor] = numbers(bun);
  if (major < 1 || (major === 1 && minor < 4)) refuse(`weblocks-wasm needs Bun 1.4 or later; this is Bun ${bun}. Upgrade Bun.`);
} else {
  const [major, minor] = numbers(node);
  if (!(major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19))) {
    refuse(`weblocks-wasm needs Node ^20.19.0 or >=22.12.0 (package.json "engines"); this is Node ${node}. Upgrade Node.`);
  }
}
