'use strict';
// require('weblocks-wasm') and require('weblocks-wasm/polyfill') (the "require" condition): the
// package is ES modules, which Node loads with require() from 20.19 and 22.12 on (the engines
// field). Elsewhere, a clear error instead of ERR_REQUIRE_ESM.
module.exports = function requireEsm(load, specifier) {
  if (process.features && process.features.require_module === true) return load();
  const error = new Error(`${specifier} is an ES module package: require() of it needs Node ^20.19.0 or >=22.12.0 ` +
    `and a require() that loads ES modules (here: Node ${process.versions.node}, whose require() cannot; ` +
    `a test runner's own require() cannot either). Use \`import\` or \`await import('${specifier}')\`, or upgrade Node.`);
  error.code = 'ERR_REQUIRE_ESM';
  throw error;
};
