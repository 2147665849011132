#!/usr/bin/env bash
# Builds everything into build/ (never into src/ or js/): the native engine and its tests (CMake),
# the two wasm modules (shared and ordinary memory), and the browser bundles.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-engine.sh
node scripts/build-js.mjs
