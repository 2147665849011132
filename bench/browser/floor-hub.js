// The floor's hub (bench/browser/floor-client.js): a SharedWorker that answers every message at
// once, with no engine, no queue and no liveness. The first-grant bench's `floor` contender: what a
// SharedWorker round trip alone costs a page, the least any SharedWorker-based lock space can pay.
function serve(port) {
  port.onmessage = (event) => {
    if (event.ports.length > 0) serve(event.ports[0]); // a dedicated worker's port, from its creator
    else port.postMessage(event.data);
  };
}
self.onconnect = (event) => serve(event.ports[0]);
