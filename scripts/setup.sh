#!/usr/bin/env bash
# Installs what this project needs on a fresh Debian machine, and nothing that is already there.
# Debian packages: the Emscripten toolchain, Binaryen, WABT, the three browsers of the browser tests
# (Chromium; Firefox ESR; WebKitGTK's WebKitWebDriver + MiniBrowser, run under Xvfb, with a font
# and D-Bus for GTK), the native build and test tools, etcd (tests of the etcd lock space) and Redis
# (its benchmark; the tests start their own servers on free ports).
# npm packages: exactly package-lock.json (npm ci), skipped when node_modules already matches it.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# package -> a file it installs (checked instead of asking dpkg, which is slow)
declare -A wanted=(
  [emscripten]=/usr/bin/em++
  [binaryen]=/usr/bin/wasm-opt
  [wabt]=/usr/bin/wasm-objdump
  [chromium]=/usr/bin/chromium
  [firefox-esr]=/usr/bin/firefox-esr
  [webkit2gtk-driver]=/usr/bin/WebKitWebDriver
  [xvfb]=/usr/bin/Xvfb
  [xauth]=/usr/bin/xauth
  [xdotool]=/usr/bin/xdotool    # WebKit screenshots after a crash: find and raise the tab's window
  [x11-apps]=/usr/bin/xwd       # ... and capture it (tests/browser/support/x-screenshot.js)
  [fonts-dejavu-core]=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
  [dbus]=/usr/bin/dbus-daemon
  [cmake]=/usr/bin/cmake
  [g++]=/usr/bin/g++
  [clang]=/usr/bin/clang++
  [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [etcd-server]=/usr/bin/etcd          # the etcd lock space's tests start a 3-member cluster of it
  [redis-server]=/usr/bin/redis-server  # bench/etcd: redlock on a local Redis, side by side
  [iproute2]=/usr/bin/ip               # scripts/test.sh: test steps in a network namespace with loopback only
  [nodejs]=/usr/bin/node
  [npm]=/usr/bin/npm
)
missing=()
for pkg in "${!wanted[@]}"; do
  [ -e "${wanted[$pkg]}" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_if_needed apt-get update -qq
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm ci only when package-lock.json changed since the last install (puppeteer-core: never a
# downloaded browser, the tests use Debian's firefox-esr)
stamp=node_modules/.setup-lock-sha256
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$lock_sum" ]; then
  echo "setup: npm ci"
  PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_sum" > "$stamp"
fi
