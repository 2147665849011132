// For the tests that drive Hub and HubBackend in one thread: resolves once `predicate()` holds,
// checked after each turn of the event loop (for up to `ms`), else rejects naming `what`.
export async function until(predicate, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
