#!/usr/bin/env bash
# Installs whatever is missing, builds native and WebAssembly, and runs every test:
# unit tests (doctest via CTest), WASM parity (native vs Node.js, byte-identical JSON) and the
# browser end-to-end test (playwright-core driving Debian's Chromium). Non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
export NODE_PATH=/usr/share/nodejs   # Emscripten's JS optimizer needs Debian's acorn

step() { printf '\n== %s\n' "$*"; }

step "setup"
./scripts/setup.sh

step "native build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2

step "unit tests"
ctest --test-dir build --output-on-failure

step "WebAssembly build"
emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-wasm -j2

step "WASM parity"
tests/parity/run.sh

step "browser end-to-end"
node tests/e2e/page.test.mjs

# The contract checks of the issues resolved so far. Checks that time two runs against each
# other (delta speedup, WASM vs native) are benchmarks, run by hand: `../shared/checks/run-all 3-`.
if [ -d ../shared/checks ]; then
  step "contract checks"
  for c in 2-models-and-clusters 3-space-counts 3-conv1d-demo 3-strategy-roundtrip 3-delta-equals-full \
           3-lecture-findings 3-mcmc-vs-exhaustive 3-accuracy-study; do
    [ -x "../shared/checks/$c" ] || continue
    ../shared/checks/run-all "$c"
  done
fi

printf '\nall tests passed\n'
