// A loopback TCP proxy that can stop forwarding (a network stall: no close, no reset, bytes just
// stop) and start again; what arrives meanwhile is held, as a stalled path holds it. New
// connections can be sent to another port (a load balancer that moved on to another server).
import net from 'node:net';

export async function startStallProxy(t, targetPort) {
  const pairs = new Set();
  let stalled = false;
  let target = targetPort;
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    const pair = { client, upstream, held: [] };
    pairs.add(pair);
    const forward = (from, to) => {
      from.on('data', (chunk) => {
        if (stalled) pair.held.push(() => to.write(chunk));
        else to.write(chunk);
      });
      from.on('close', () => {
        // A close reaches the other side only when the path flows again.
        if (stalled) pair.held.push(() => to.destroy());
        else to.destroy();
      });
      from.on('error', () => {});
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const { client, upstream } of pairs) { client.destroy(); upstream.destroy(); }
    server.close();
  });
  return {
    port: server.address().port,
    stall() { stalled = true; },
    /** Connections made from now on go to `port`. */
    retarget(port) { target = port; },
    flow() {
      stalled = false;
      for (const pair of pairs) {
        const held = pair.held;
        pair.held = [];
        for (const deliver of held) deliver();
      }
    },
  };
}
