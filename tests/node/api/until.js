// For the tests that drive Hub and HubBackend in one thread: resolves once `predicate()` holds,
// checked after each turn of the event loop (for up to `ms`), else rejects naming `what`.
export async function until(predicate, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** As until(), for a predicate that returns a promise: checked every 10 ms. */
export async function eventually(check, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
