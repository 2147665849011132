// The source of a lock space's keeper (rendezvous.js): a tiny Worker that holds the space and
// hands it to threads that ask, and does nothing else, so that it answers even while every thread
// in the space is blocked (an idle pool worker waits in Atomics.wait). It records itself with an
// abstract Unix socket name (freed when it ends), answers only asks addressed to its kernel
// thread id, and keeps its own event loop alive with its channel; its starter unref's it, so it
// keeps no process alive. Evaluated as a script (eval: true), on every runtime the package supports.
export const KEEPER_SOURCE = `'use strict';
const { workerData, BroadcastChannel } = process.getBuiltinModule('node:worker_threads');
const { createServer } = process.getBuiltinModule('node:net');
const { readlinkSync } = process.getBuiltinModule('node:fs');
// Node's timers (Deno's global ones return numbers, without unref).
const { setTimeout } = process.getBuiltinModule('node:timers');
const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
const { space, channel: channelName, name } = workerData;
const server = createServer((socket) => socket.destroy());
server.on('error', () => process.exit(0));
server.listen('\\0' + name + '/' + tid);
if (!server.listening) process.exit(0);
server.unref();
const channel = new BroadcastChannel(channelName);
channel.onmessage = ({ data }) => {
  if (!data || data.type !== 'ask' || data.from !== tid || !data.want.includes(space.id)) return;
  const answer = new BroadcastChannel(data.reply);
  answer.postMessage({ type: 'space', space });
  setTimeout(() => answer.close(), 5000).unref();
};
`;
