// The bench's server process: a lock server on /locks and a bare WebSocket echo on /echo, on one
// HTTP server on 127.0.0.1 (the contender: the round trip any WebSocket protocol pays). Prints its port.
// Arguments PING/GRACE (ms, e.g. 200/1000) add lock servers with those liveness settings on
// /locks-PING-GRACE, for the silent-holder rounds.
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { createLockServer } from '../../js/server/index.js';

const server = http.createServer();
const lockServer = createLockServer({ authorize: () => 'bench' });
lockServer.attach(server, { path: '/locks' });
for (const pair of process.argv.slice(2)) {
  const [pingInterval, grace] = pair.split('/').map(Number);
  createLockServer({ authorize: () => 'bench', pingInterval, grace }).attach(server, { path: `/locks-${pingInterval}-${grace}` });
}
const echo = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on('upgrade', (req, socket, head) => {
  if (req.url !== '/echo') return;
  echo.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
