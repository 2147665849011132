// Only this user reaches a machine lock space: its folder and socket are checked before every
// connection, and a misconfigured one is refused loudly, with the fix, at the first request. A
// lock space name is one file name. A hostile local client gets what a hostile page gets from
// the browser hub: it can touch only its own requests and locks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createMachineLockManager } from '../../../js/machine/locks.js';
import { checkSpaceName } from '../../../js/machine/place.js';
import { ownProcess } from '../../../js/machine/process-proof.js';
import { encodeFrame, FrameDecoder } from '../../../js/machine/frames.js';
import { PROTOCOL_VERSION } from '../../../js/hub/protocol.js';
import { freshSpace, REGISTER_MACHINE } from './support.js';
import { until } from '../api/until.js';

const NOBODY = 65534;
const asRoot = process.getuid() === 0;

async function refusal(folder, space = 'test') {
  const locks = createMachineLockManager({ folder, space });
  return locks.request('x', () => 'granted').then(() => null, (error) => error);
}

test('a lock space folder that group or others may enter is refused at the first request, naming the fix', async (t) => {
  const { folder } = freshSpace(t);
  fs.chmodSync(folder, 0o750);
  const error = await refusal(folder);
  assert.equal(error?.code, 'ERR_WEBLOCKS_MACHINE_FOLDER');
  assert.match(error.message, /mode is 750/);
  assert.match(error.message, new RegExp(`chmod 700 ${folder}`));
  assert.equal(fs.existsSync(path.join(folder, 'test.sock')), false, 'no hub was started there');
});

test('a lock space folder that is a symlink is refused', async (t) => {
  const { folder } = freshSpace(t);
  const link = `${folder}-link`;
  fs.symlinkSync(folder, link);
  t.after(() => fs.unlinkSync(link)); // (rmSync would follow the link, dangling once the folder is gone)
  const error = await refusal(link);
  assert.equal(error?.code, 'ERR_WEBLOCKS_MACHINE_FOLDER');
  assert.match(error.message, /not a directory/);
});

test('a lock space folder or socket owned by another user is refused', { skip: asRoot ? false : 'needs root to give a file to another user' }, async (t) => {
  const { folder } = freshSpace(t);
  fs.chownSync(folder, NOBODY, NOBODY);
  const error = await refusal(folder);
  assert.equal(error?.code, 'ERR_WEBLOCKS_MACHINE_FOLDER');
  assert.match(error.message, new RegExp(`belongs to user ${NOBODY}`));

  const mine = freshSpace(t).folder;
  const server = net.createServer().listen(path.join(mine, 'test.sock'));
  await new Promise((resolve) => server.once('listening', resolve));
  t.after(() => server.close());
  fs.chownSync(path.join(mine, 'test.sock'), NOBODY, NOBODY);
  const socketError = await refusal(mine);
  assert.equal(socketError?.code, 'ERR_WEBLOCKS_MACHINE_SOCKET');
  assert.match(socketError.message, new RegExp(`belongs to user ${NOBODY}`));
});

test('a file that is not a socket where the socket belongs is refused, not replaced', async (t) => {
  const { folder } = freshSpace(t);
  fs.writeFileSync(path.join(folder, 'test.sock'), 'not a socket');
  const error = await refusal(folder);
  assert.equal(error?.code, 'ERR_WEBLOCKS_MACHINE_SOCKET');
  assert.equal(fs.readFileSync(path.join(folder, 'test.sock'), 'utf8'), 'not a socket');
});

test('a lock space name cannot leave its folder: anything but 1-64 of A-Z a-z 0-9 . _ - not starting with "." is a TypeError', () => {
  for (const name of ['../escape', '..', '.hidden', 'a/b', 'a\\b', '', 'x'.repeat(65), 'nul\0', 'space name', '/abs']) {
    assert.throws(() => checkSpaceName(name), TypeError, JSON.stringify(name));
    assert.throws(() => createMachineLockManager({ space: name, folder: '/tmp' }), TypeError);
  }
  for (const name of ['default', 'my-app.v2', 'A_1', 'x'.repeat(64)]) assert.equal(checkSpaceName(name), name);
});

test('a process started with an invalid WEBLOCKS_MACHINE_SPACE fails at once, saying what a name may be', (t) => {
  const { env } = freshSpace(t);
  const run = spawnSync(process.execPath, ['--import', REGISTER_MACHINE, '-e', 'console.log("ran")'], { env: { ...env, WEBLOCKS_MACHINE_SPACE: '../../etc' }, encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.doesNotMatch(run.stdout, /ran/);
  assert.match(run.stderr, /TypeError: weblocks-wasm: machine lock space name "..\/..\/etc" is not allowed/);
});

/** A client that speaks the protocol itself over the socket, as a hostile local process can. */
async function rawClient(socketPath) {
  const socket = net.connect(socketPath);
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject); });
  const heard = [];
  const decoder = new FrameDecoder((text) => heard.push(JSON.parse(text)), () => {});
  socket.on('data', (chunk) => decoder.push(chunk));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  return { socket, heard, closed, send: (message) => socket.write(encodeFrame(message)) };
}

test('a hostile local client cannot release, abort or take over another process\'s lock, and garbage only closes its own connection', async (t) => {
  const space = freshSpace(t);
  const victim = createMachineLockManager({ folder: space.folder, space: space.space });
  let letGo;
  const held = victim.request('x', () => new Promise((resolve) => { letGo = resolve; }));
  const waiting = victim.request('y', () => new Promise(() => {})); // holds y
  await until(() => letGo !== undefined, 'the victim holds x');
  const { held: [info] } = await victim.query();

  const hostile = await rawClient(space.files.socket);
  hostile.send({ t: 'hello', v: PROTOCOL_VERSION, clientId: 'hostile', key: 'k', lostHub: null, reclaim: [], proc: ownProcess() });
  await until(() => hostile.heard.some((m) => m.t === 'welcome'), 'the hostile client is welcomed');
  // Every token the victim could have: released and aborted from here.
  for (let token = 1; token <= 50; token++) hostile.send({ t: 'release', token }), hostile.send({ t: 'abort', token });
  // Taking over the victim's connection needs its key (a secret): its clientId alone is refused.
  const thief = await rawClient(space.files.socket);
  thief.send({ t: 'hello', v: PROTOCOL_VERSION, clientId: info.clientId, key: 'guessed', lostHub: 'x', reclaim: [{ token: 1, name: 'x', mode: 'exclusive', held: true, seq: null }], proc: ownProcess() });
  await until(() => thief.heard.some((m) => m.t === 'rejected'), 'the thief is refused');
  assert.equal(thief.heard.find((m) => m.t === 'rejected').reason, 'clientId');
  // Malformed messages, a frame that is not JSON, then a frame too large to accept.
  hostile.send({ t: 'request', token: 1, name: 'x', mode: 'exclusive', wait: 'preempt', extra: 1 });
  hostile.send([1, 2, 3]);
  hostile.socket.write(Buffer.from([0, 0, 0, 3, 0x7b, 0x7b, 0x7b]));
  const asked = await victim.request('x', { ifAvailable: true }, (lock) => lock);
  assert.equal(asked, null, 'x is still held by the victim: its own ifAvailable request gets null');
  hostile.socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  await hostile.closed;

  const state = await victim.query();
  assert.deepEqual(state.held.map((lock) => [lock.name, lock.clientId]).sort(), [['x', info.clientId], ['y', info.clientId]]);
  assert.match(fs.readFileSync(space.files.log, 'utf8'), /rejected a message from hostile \(release of a token never issued\)/);
  letGo();
  await held;
  // Still held when the test's hub is killed and its folder removed: the hub the victim starts
  // again finds no pid file, so no hub of this lock space left clients behind, and it refuses
  // the claim (js/hub/succession.js): y's request rejects with an AbortError.
  waiting.catch(() => {});
  thief.socket.destroy();
});

test('the hub checks the protocol version over the socket as over a port: a client of another version is refused, saying so', async (t) => {
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  await locks.request('start', () => {}); // a hub serves
  const other = await rawClient(space.files.socket);
  other.send({ t: 'hello', v: PROTOCOL_VERSION + 1, clientId: 'newer', key: 'k', lostHub: null, reclaim: [] });
  await until(() => other.heard.some((m) => m.t === 'rejected'), 'the newer client is refused');
  const refusal = other.heard.find((m) => m.t === 'rejected');
  assert.equal(refusal.reason, 'version');
  assert.equal(refusal.v, PROTOCOL_VERSION);
  other.socket.destroy();
});

test('a process whose hub speaks another protocol version fails its requests with an error that names the fix', async (t) => {
  const space = freshSpace(t);
  // A hub of another build of the package: it greets, then refuses the hello on its version.
  const sockets = new Set();
  const fake = net.createServer((socket) => {
    sockets.add(socket);
    socket.write(encodeFrame({ t: 'hub', hubId: 'older' }));
    socket.on('data', () => socket.write(encodeFrame({ t: 'rejected', v: PROTOCOL_VERSION - 1, reason: 'version', message: 'mismatch' })));
  });
  await new Promise((resolve) => fake.listen(space.files.socket, resolve));
  t.after(() => { for (const socket of sockets) socket.destroy(); fake.close(); });
  const error = await refusal(space.folder);
  assert.equal(error?.name, 'NotSupportedError');
  assert.match(error.message, new RegExp(`speaks protocol ${PROTOCOL_VERSION - 1}, this process ${PROTOCOL_VERSION}`));
  assert.match(error.message, /Use one version, or give them different lock spaces \(WEBLOCKS_MACHINE_SPACE\)/);
});

test('a client whose hello names no process, or a process the hub cannot see (another PID namespace), is refused, saying why', async (t) => {
  const space = freshSpace(t);
  const locks = createMachineLockManager({ folder: space.folder, space: space.space });
  await locks.request('start', () => {}); // a hub serves
  const own = ownProcess();
  for (const proc of [undefined, { ...own, start: own.start + 1 }, { pid: 0x7ffffff0, tid: 0x7ffffff0, start: 1 }]) {
    const client = await rawClient(space.files.socket);
    client.send({ t: 'hello', v: PROTOCOL_VERSION, clientId: 'unprovable', key: 'k', lostHub: null, reclaim: [], ...(proc === undefined ? {} : { proc }) });
    await until(() => client.heard.some((m) => m.t === 'rejected'), 'the client is refused');
    const refusal = client.heard.find((m) => m.t === 'rejected');
    assert.equal(refusal.reason, 'process');
    assert.match(refusal.message, proc === undefined ? /does not say which process it is/ : /cannot share a machine lock space/);
    client.socket.destroy();
  }
});
