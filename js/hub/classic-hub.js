// Entry of the classic hub bundle (build/dist/weblocks-hub.js): the wasm files sit next to it.
// Imports evaluate in order: the asset base is set before the hub loads its engine.
import './classic-base.js';
import './hub-worker.js';
