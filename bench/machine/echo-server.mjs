// The other end of the bare round trip (bench/machine/impls.mjs 'socket-echo'): a process that
// writes back on a Unix domain socket whatever it reads. It says 'ready' over IPC once listening.
import net from 'node:net';

const server = net.createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
server.listen(process.argv[2], () => process.send('ready'));
process.on('disconnect', () => process.exit(0));
