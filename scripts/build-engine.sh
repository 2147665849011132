#!/usr/bin/env bash
# Builds the engine: natively with CMake (build/native: library, GoogleTest suite, ThreadSanitizer
# stress, all registered with ctest) and to WebAssembly with Emscripten + Binaryen (build/wasm:
# weblocks-engine-shared.wasm imports a shared memory, weblocks-engine.wasm an ordinary one).
# Incremental: a step whose outputs are newer than its sources does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

# ---- native ----
if [ ! -f build/native/CMakeCache.txt ]; then
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
# Progress lines are dropped; warnings and errors are shown; a failed build stops the script.
if ! cmake --build build/native -j 2 > build/native/build.log 2>&1; then
  cat build/native/build.log
  echo "build-engine: native build failed" >&2
  exit 1
fi
grep -v -e '^\[' -e '^Consolidate' -e 'Built target' -e 'Scanning dependencies' build/native/build.log || true

# ---- wasm ----
out=build/wasm
mkdir -p "$out"
sources=(src/arena.cpp src/names.cpp src/algorithms.cpp src/journal.cpp src/deadlock.cpp src/c_api.cpp src/undo.cpp wasm/platform_wasm.cpp wasm/engine_wasm.cpp)
inputs=("${sources[@]}" src/*.h include/weblocks/*.h wasm/exports.txt scripts/build-engine.sh)

up_to_date() {  # up_to_date OUTPUT: is it newer than every input?
  [ -f "$1" ] || return 1
  local input
  for input in "${inputs[@]}"; do [ "$input" -nt "$1" ] && return 1; done
  return 0
}

exports=$(paste -sd, wasm/exports.txt | sed 's/[^,]*/"_&"/g')
common=(-std=c++17 -O3 -Iinclude -fno-exceptions -fno-rtti -sSTANDALONE_WASM --no-entry
  -sIMPORTED_MEMORY -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=262144 -sMAXIMUM_MEMORY=1073741824
  -sTOTAL_STACK=16384 "-sEXPORTED_FUNCTIONS=[${exports}]")

build_module() {  # build_module NAME [flags...]
  local name=$1; shift
  local target="$out/$name.wasm"
  if up_to_date "$target"; then return 0; fi
  em++ "${common[@]}" "$@" "${sources[@]}" -o "$out/$name.unopt.wasm"
  wasm-opt -O3 --enable-threads --enable-bulk-memory --enable-mutable-globals --enable-sign-ext \
    "$out/$name.unopt.wasm" -o "$target"
  rm -f "$out/$name.unopt.wasm"
  echo "build-engine: $target $(stat -c %s "$target") bytes"
}

build_module weblocks-engine-shared -matomics -mbulk-memory -Wl,--shared-memory
build_module weblocks-engine
