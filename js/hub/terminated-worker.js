// How long a dedicated worker may still run after it was terminated (its creator's terminate(), or
// its creator's document went away), measured with a busy worker whose section posted its clock
// every 20 ms (tests/browser/busy.spec.js; busy-terminated.spec.js checks the order exactly):
// - Chromium runs a busy worker's script on until a task on the creator's thread 2 s later
//   (WorkerThread's forcible termination; measured 1985-2063 ms, and until the creator's thread is
//   free where it is busy then): LIVENESS.TERMINATED_RUNS_ON.
// - Firefox interrupts it at once (its last stamp within 16 ms of terminate() or of its tab's
//   close): LIVENESS.TERMINATED_RUNS_ON_GECKO. Gecko is told by its script engine (SpiderMonkey's
//   own InternalError global), not by the user agent, which extensions rewrite: any other engine,
//   or a Gecko without it, gets the longer wait.
// (WebKit stopped at once too, but its workers have sentinels, which tell the hub directly.)

/** Milliseconds after its termination by which a dedicated worker has surely stopped running. */
export function terminatedWorkerRunsOn(liveness, scope = globalThis) {
  return typeof scope.InternalError === 'function' ? liveness.TERMINATED_RUNS_ON_GECKO : liveness.TERMINATED_RUNS_ON;
}
