// node:fs without its ES module facade. Importing 'node:fs' as ESM reads every one of its exports
// at once, and on Node 24 one of them (Utf8Stream) builds a SharedArrayBuffer when first read: in a
// process without SharedArrayBuffer the package could not even load (it falls back to an
// in-context engine there). The CommonJS module reads an export only when it is used; taken with
// process.getBuiltinModule (every supported Node has it: supported-node.js), not createRequire,
// which loaded node:module and its source maps into every worker thread's start.
export const fs = process.getBuiltinModule?.('node:fs'); // (undefined on a Node too old: supported-node.js says so)
