#!/usr/bin/env bash
# The README's bench command: installs what is missing, builds, then runs every benchmark side by side
# (ours vs Chromium's native navigator.locks, Node 24's built-in and the npm peers), writes
# build/bench/latest.json and bench/results/latest.md, and prints the markdown tables.
# Arguments go to bench/run.mjs, e.g. `bash scripts/bench.sh --rounds 3 --only node`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec node bench/run.mjs "$@"
