// A 3-member etcd cluster on loopback for the tests: Debian's etcd-server (scripts/setup.sh),
// distinct free ports, data directories in a temporary directory (on /dev/shm when there is one,
// so fsync costs little), removed at stop(). Members can be killed (SIGKILL) and restarted, or
// paused (SIGSTOP) and resumed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';

const ETCD = process.env.WEBLOCKS_TEST_ETCD ?? '/usr/bin/etcd';

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startCluster({ size = 3, heartbeatMs = 50, electionMs = 500 } = {}) {
  if (!existsSync(ETCD)) {
    throw new Error(`etcd not found at ${ETCD}: install Debian's etcd-server (bash scripts/setup.sh does).`);
  }
  // The client is a dev dependency here (an optional peer dependency for users): say so at once,
  // rather than let every request of every test fail with ERR_WEBLOCKS_ETCD3_MISSING.
  try {
    await import('etcd3');
  } catch {
    throw new Error('the etcd tests need the npm package etcd3 (a devDependency): run `bash scripts/setup.sh` (npm ci).');
  }
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = mkdtempSync(join(base, 'weblocks-etcd-'));
  const members = [];
  for (let i = 0; i < size; i++) {
    members.push({ name: `m${i}`, clientPort: await freePort(), peerPort: await freePort(), dir: join(root, `m${i}`), process: null, log: '' });
  }
  const initialCluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',');
  const token = `weblocks-${process.pid}-${Date.now()}`;

  function launch(member) {
    const child = spawn(ETCD, [
      '--name', member.name, '--data-dir', member.dir,
      '--listen-client-urls', `http://127.0.0.1:${member.clientPort}`,
      '--advertise-client-urls', `http://127.0.0.1:${member.clientPort}`,
      '--listen-peer-urls', `http://127.0.0.1:${member.peerPort}`,
      '--initial-advertise-peer-urls', `http://127.0.0.1:${member.peerPort}`,
      '--initial-cluster', initialCluster, '--initial-cluster-state', 'new', '--initial-cluster-token', token,
      '--heartbeat-interval', String(heartbeatMs), '--election-timeout', String(electionMs),
      '--log-level', 'warn', '--logger', 'zap',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (chunk) => { member.log = (member.log + chunk).slice(-20_000); });
    member.process = child;
    member.exited = new Promise((resolve) => child.once('exit', resolve));
    return child;
  }

  for (const member of members) launch(member);
  const cluster = {
    root,
    members,
    hosts: members.map((m) => `http://127.0.0.1:${m.clientPort}`),
    async waitHealthy(indexes = members.map((_, i) => i), patienceMs = 30_000) {
      const deadline = Date.now() + patienceMs;
      for (const i of indexes) {
        for (;;) {
          try {
            const answer = await fetch(`http://127.0.0.1:${members[i].clientPort}/health`, { signal: AbortSignal.timeout(1000) });
            const body = await answer.json();
            if (body.health === 'true') break;
          } catch { /* not up yet */ }
          if (Date.now() > deadline) throw new Error(`etcd member ${i} not healthy after ${patienceMs} ms:\n${members[i].log}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    },
    /** SIGKILL one member; resolves once it is gone. */
    async kill(i) {
      const member = members[i];
      if (member.process === null) return;
      member.process.kill('SIGKILL');
      await member.exited;
      member.process = null;
    },
    /** The index of the member that is the raft leader now (from its /metrics), or -1. */
    async leaderIndex() {
      for (let i = 0; i < members.length; i++) {
        if (members[i].process === null) continue;
        try {
          const answer = await fetch(`http://127.0.0.1:${members[i].clientPort}/metrics`, { signal: AbortSignal.timeout(1000) });
          if (/^etcd_server_is_leader 1$/m.test(await answer.text())) return i;
        } catch { /* down or busy */ }
      }
      return -1;
    },
    /** SIGSTOP one member (it keeps its connections and answers nothing) until resume(i). */
    pause(i) {
      members[i].process?.kill('SIGSTOP');
      members[i].paused = true;
    },
    resume(i) {
      members[i].process?.kill('SIGCONT');
      members[i].paused = false;
    },
    /** Starts a killed member again on its data directory. */
    restart(i) {
      if (members[i].process === null) launch(members[i]);
    },
    isRunning(i) {
      return members[i].process !== null;
    },
    async stop() {
      members.forEach((member, i) => { if (member.paused) cluster.resume(i); });
      await Promise.all(members.map((_, i) => cluster.kill(i)));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await cluster.waitHealthy();
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
