// The demo's own announcements between its contexts (tabs and workers of this origin).
// navigator.locks has no change event, so each context says when its own lock activity changed
// and the others re-read the lock state with query(): event-driven, no polling.
const CHANNEL_NAME = 'weblocks-demo';

export function openBus(onMessage) {
  const channel = new BroadcastChannel(CHANNEL_NAME);
  channel.onmessage = (event) => onMessage(event.data);
  return {
    post(message) { channel.postMessage(message); },
    close() { channel.close(); },
  };
}
