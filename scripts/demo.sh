#!/usr/bin/env bash
# The README's main command: installs what is missing, builds the engine and the browser bundles,
# then serves the cross-tab demo on 127.0.0.1 (PORT, default 8100) and prints its URLs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node scripts/serve.mjs
