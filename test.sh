#!/usr/bin/env bash
# Installs whatever is missing, builds native and WebAssembly, and runs every test:
# unit tests (doctest via CTest), WASM parity (native vs Node.js, byte-identical JSON) and the
# browser end-to-end test (playwright-core driving Debian's Chromium). Non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
export NODE_PATH=/usr/share/nodejs   # Emscripten's JS optimizer needs Debian's acorn

# Each step prints the minutes since the start, so a slow CI run shows which step grew.
start_s=$SECONDS
tmp_out=$(mktemp); trap 'rm -f "$tmp_out" "$tmp_out".*' EXIT
# The CPU time (user + system) of the steps so far too: on a shared machine it says more than the
# wall time.
# `times` runs in this shell (its children's times), awk reads what it wrote.
cpu_s() {
  times >"$tmp_out.times"
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' "$tmp_out.times")
}
step() {
  cpu_s
  printf '\n== %s (at %d min %02d s, CPU %d min %02d s)\n' "$*" $(((SECONDS - start_s) / 60)) $(((SECONDS - start_s) % 60)) $((cpu / 60)) $((cpu % 60))
}

step "setup"
./scripts/setup.sh

step "native build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2

step "unit tests"
ctest --test-dir build --output-on-failure
tests/arch/check_includes.sh   # web/ includes no planner header, glpk.h, or imgui.h outside panels/platform

step "sanitizers and fuzzing (clang: AddressSanitizer, UndefinedBehaviorSanitizer, libFuzzer)"
# Line tables are debug information enough for the sanitizers' stack traces (file:line), and
# cheaper to compile than full -g.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUTOPAR_FUZZ=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" >/dev/null
cmake --build build-fuzz -j2 --target autopar_tests fuzz_model fuzz_cluster fuzz_strategy fuzz_stage_costs fuzz_spec fuzz_share_link
build-fuzz/autopar_tests
# Each fuzzer is one process on one core: two run at a time, each for its full FUZZ_SECONDS.
fuzz() {
  local t=$1 work
  work=$(mktemp -d)   # new inputs land here, not in the committed seed corpus
  if build-fuzz/fuzz_$t -max_total_time="${FUZZ_SECONDS:-15}" -timeout=10 -rss_limit_mb=2048 "$work" "tests/fuzz/corpus/$t" 2>"$work.log"; then
    echo "fuzz_$t: $(grep -E '^Done' "$work.log")"
    rm -rf "$work" "$work.log"
  else
    tail -40 "$work.log"; echo "fuzz_$t found a crash (input saved by libFuzzer above)"; return 1
  fi
}
for pair in "model cluster" "strategy stage_costs" "spec share_link"; do
  read -r a b <<<"$pair"
  fuzz "$a" >"$tmp_out.a" 2>&1 & pa=$!
  fuzz "$b" >"$tmp_out.b" 2>&1 & pb=$!
  ra=0; rb=0; wait $pa || ra=$?; wait $pb || rb=$?
  cat "$tmp_out.a" "$tmp_out.b"
  [ $ra -eq 0 ] && [ $rb -eq 0 ] || exit 1
done

# The panels, compiled natively (Dear ImGui without a window) and drawn over a real page state in
# the sanitized build above (AUTOPAR_FUZZ implies AddressSanitizer and UndefinedBehaviorSanitizer
# as AUTOPAR_SANITIZE does): only Dear ImGui and the panels are compiled anew.
step "panels under the sanitizers (tests/panels)"
cmake --build build-fuzz -j2 --target autopar_panels_tests
build-fuzz/autopar_panels_tests

step "lecture scenarios (key numbers)"
python3 tests/scenarios/check.py build/autopar

step "WebAssembly build"
emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-wasm -j2

step "WASM parity"
tests/parity/run.sh

step "bad inputs (native and WebAssembly)"
tests/bad-inputs/run.sh

step "browser end-to-end"
# Each file's wall time after its summary line, so a slow run shows which file grew.
for f in tests/e2e/*.test.mjs; do
  t0=$SECONDS
  node "$f"
  echo "     ($(basename "$f"): $((SECONDS - t0)) s)"
done

# The contract checks. Those that time runs against each other (delta speedup, WASM vs native,
# planning speed) are benchmarks, run by hand: `../shared/checks/run-all`.
if [ -d ../shared/checks ]; then
  step "contract checks"
  for c in 2-models-and-clusters 3-space-counts 3-conv1d-demo 3-strategy-roundtrip 3-delta-equals-full \
           3-lecture-findings 3-mcmc-vs-exhaustive 3-accuracy-study 4-linear-nine-strategies \
           4-megatron-rediscovered 5-exports 6-compare 6-scenarios; do
    [ -x "../shared/checks/$c" ] || continue
    ../shared/checks/run-all "$c"
  done
fi

cpu_s
printf '\nall tests passed (%d min %02d s, CPU %d min %02d s)\n' $(((SECONDS - start_s) / 60)) $(((SECONDS - start_s) % 60)) $((cpu / 60)) $((cpu % 60))
