// Why a hub SharedWorker did not start: the `error` event says nothing, so fetch the script and
// tell a deployment mistake (missing, wrong URL, not JavaScript) from a browser that refuses
// SharedWorkers in this context although the script is fine.

const FIX = 'Serve build/dist/weblocks-hub.js and its .wasm files from the folder of weblocks-polyfill.js, '
  + 'or set WEBLOCKS_HUB_URL to the hub script\'s URL before the polyfill runs. '
  + 'Every lock request fails until then: separate engines per tab would not exclude each other.';

/** null when the hub script loads as JavaScript; otherwise the error message, naming the URL and the fix. */
export async function diagnoseHubScript(scope, hubUrl) {
  let detail;
  try {
    const response = await scope.fetch(hubUrl, { cache: 'no-store', credentials: 'same-origin' });
    const type = response.headers.get('content-type') ?? '';
    if (response.ok && /(java|ecma)script/i.test(type)) return null;
    detail = response.ok
      ? `it is served as ${type === '' ? 'no Content-Type' : `"${type}"`}, not JavaScript`
      : `it answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  } catch (error) {
    detail = `fetching it failed: ${error?.message ?? error}`;
  }
  return `Web Locks: the lock hub script ${hubUrl} could not be loaded (${detail}). ${FIX}`;
}
