// node:fs without its ES module facade. Importing 'node:fs' as ESM reads every one of its exports
// at once, and on Node 24 one of them (Utf8Stream) builds a SharedArrayBuffer when first read: in a
// process without SharedArrayBuffer the package could not even load (it falls back to an
// in-context engine there). require() reads an export only when it is used.
import { createRequire } from 'node:module';

export const fs = createRequire(import.meta.url)('node:fs');
