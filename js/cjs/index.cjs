'use strict';
// require('weblocks-wasm'): the Node ponyfill, through require(esm) (js/cjs/require.cjs).
module.exports = require('./require.cjs')(() => require('../node/index.js'), 'weblocks-wasm');
