// Cross-site WebSocket hijacking: a page of another site can open a WebSocket to this server with
// the user's cookies. Browsers always send Origin on a WebSocket upgrade; clients that are not
// browsers (Node, Bun, Deno) send none, and cannot carry a victim's cookies anyway.

/** Is the upgrade request's Origin allowed? Default: the request's own host only. */
export function originAllowed(req, origins) {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (typeof origins === 'function') return origins(origin, req) === true;
  if (Array.isArray(origins)) return origins.includes(origin);
  let host;
  try {
    host = new URL(origin).host;
  } catch {
    return false; // 'null' (a sandboxed or file: page) and anything unparsable
  }
  return host === req.headers.host;
}
