'use strict';
// require('weblocks-wasm/polyfill'): the Node polyfill, through require(esm) (js/cjs/require.cjs).
module.exports = require('./require.cjs')(() => require('../node/polyfill.js'), 'weblocks-wasm/polyfill');
