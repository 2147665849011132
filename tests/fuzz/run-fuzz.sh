#!/usr/bin/env bash
# Builds the libFuzzer target on the engine's C ABI with clang++ (ASan + UBSan) and runs it.
#   bash tests/fuzz/run-fuzz.sh smoke [runs]      fixed number of runs from the seed corpus (ctest)
#   bash tests/fuzz/run-fuzz.sh long SECONDS      a long run; new inputs are kept in build/fuzz/corpus
# A crash leaves its input in build/fuzz/ (crash-*): replay it with build/fuzz/engine_fuzzer <file>.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/build/fuzz"
mode="${1:-smoke}"
mkdir -p "$out"

binary="$out/engine_fuzzer"
# Coverage instrumentation on the engine only: the harness's own checks (string comparisons of
# the reference model) would otherwise dominate both the time and what libFuzzer steers toward.
flags=(-std=c++17 -g -O1 -fno-sanitize-recover=undefined -I"$root/include" -I"$root/src")
build() {
  local objects=() source object
  for source in "$root"/src/*.cpp; do
    object="$out/obj/$(basename "$source" .cpp).o"
    clang++ "${flags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$source" -o "$object"
    objects+=("$object")
  done
  clang++ "${flags[@]}" -fsanitize=address,undefined -c "$root/tests/fuzz/engine_fuzzer.cpp" -o "$out/obj/engine_fuzzer.o"
  clang++ -fsanitize=fuzzer,address,undefined "${objects[@]}" "$out/obj/engine_fuzzer.o" -o "$binary.tmp"
  mv "$binary.tmp" "$binary"
}
# Rebuild only when a source or header is newer than the binary.
if [ ! -x "$binary" ] || [ -n "$(find "$root/src" "$root/include" "$root/tests/fuzz" -newer "$binary" -type f | head -1)" ]; then
  echo "fuzz: building $binary"
  rm -rf "$out/obj" && mkdir -p "$out/obj"
  build
fi

seeds="$out/seeds"
if [ ! -d "$seeds" ] || [ "$root/tests/fuzz/make-seed-corpus.mjs" -nt "$seeds" ]; then
  rm -rf "$seeds"
  node "$root/tests/fuzz/make-seed-corpus.mjs" "$seeds"
fi

cd "$out"
case "$mode" in
  smoke)
    runs="${2:-5000}"
    # A fresh scratch corpus each time, so the smoke run is the same from a clean clone.
    rm -rf smoke-corpus && mkdir smoke-corpus
    "$binary" -runs="$runs" -seed=1 -max_len=4096 -timeout=60 -print_final_stats=1 smoke-corpus "$seeds"
    ;;
  long)
    seconds="${2:-300}"
    mkdir -p corpus
    "$binary" -max_total_time="$seconds" -max_len=4096 -timeout=60 -print_final_stats=1 corpus "$seeds"
    ;;
  *) echo "usage: $0 smoke [runs] | long SECONDS" >&2; exit 2 ;;
esac
