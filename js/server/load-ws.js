// The `ws` package (an optional peer dependency: only the server and Node 20 clients need it).
let WebSocketServer;
try {
  ({ WebSocketServer } = await import('ws'));
} catch (error) {
  const missing = new Error("weblocks-wasm/server needs the 'ws' package: npm install ws");
  missing.cause = error;
  throw missing;
}
export { WebSocketServer };
