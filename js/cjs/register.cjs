'use strict';
// `node --require weblocks-wasm/register app.js`: the same as --import (js/node/register.js), through
// require(esm) (js/cjs/require.cjs). Node runs --require preloads in every thread, eval workers
// (`new Worker(code, { eval: true })`) included, where it runs no --import preload.
module.exports = require('./require.cjs')(() => require('../node/register.js'), 'weblocks-wasm/register');
