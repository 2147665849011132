// The bench's server process: a lock server on /locks, a bare WebSocket echo on /echo (the
// contender: the round trip any WebSocket protocol pays) and a bare relay on /relay (two
// connections of one pair, each frame forwarded to the other: the path a handoff's release and
// the next holder's grant take, with no lock work), on one HTTP server on 127.0.0.1. Prints its port.
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
const pairs = new Map(); // pair id -> the connection waiting for its partner
server.on('upgrade', (req, socket, head) => {
  if (req.url === '/echo') {
    echo.handleUpgrade(req, socket, head, (ws) => ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary })));
    return;
  }
  const relay = /^\/relay\?pair=(\w+)$/.exec(req.url ?? '');
  if (relay === null) return;
  echo.handleUpgrade(req, socket, head, (ws) => {
    const partner = pairs.get(relay[1]);
    if (partner === undefined) {
      pairs.set(relay[1], ws);
      return;
    }
    pairs.delete(relay[1]);
    ws.on('message', (data, isBinary) => partner.send(data, { binary: isBinary }));
    partner.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
    ws.send('paired');
    partner.send('paired');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => process.exit(0));
