#!/usr/bin/env bash
# The README's main command: installs what is missing, builds the engine and the browser bundles,
# then serves the cross-tab demo (PORT, default 8100; HOST, default lan: the machine's LAN address, an
# insecure origin where the polyfill runs, and 127.0.0.1) and prints its URLs. See docs/demo.md.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs
