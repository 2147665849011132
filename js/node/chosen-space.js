// What every Node thread needs of the machine lock space before using it, without loading it:
// whether this process opted in, and this thread's one LockManager on the chosen lock space,
// which the process-wide entry points (js/node/thread-locks.js) and weblocks-wasm/machine share.
// Nothing here imports the machine code: js/node/thread-locks.js loads it on first use. It lives
// in js/node/ so that js/machine/ depends on js/node/ and never the other way.

/** The lock space this process opted into (WEBLOCKS_MACHINE_SPACE), or null. */
export function machineSpaceChosen() {
  try {
    return process.env.WEBLOCKS_MACHINE_SPACE || null;
  } catch {
    return null; // a runtime that refuses environment access without a permission
  }
}

let chosenSpaceLocks = null;

/** This thread's LockManager on the chosen lock space, made by `create()` the first time. */
export function chosenSpaceLockManager(create) {
  if (chosenSpaceLocks === null) chosenSpaceLocks = create();
  return chosenSpaceLocks;
}
