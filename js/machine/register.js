// `node --import weblocks-wasm/register-machine app.js`: navigator.locks in every thread of this
// process and of every Node process it starts (child_process, node:cluster workers: they inherit
// WEBLOCKS_MACHINE_SPACE and, for fork(), the preload) is one machine-wide lock space.
import './opt-in.js';
import '../node/register.js';
