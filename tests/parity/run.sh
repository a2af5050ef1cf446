#!/usr/bin/env bash
# WASM parity: every command of commands.txt gives the same stdout, stderr and exit status
# from the native CLI and from the CLI compiled to WebAssembly under Node.js.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
native=build/autopar
wasm=${WASM_CLI:-build-wasm/autopar-cli.js}
[ -x "$native" ] || { echo "missing $native: build natively first"; exit 1; }
[ -f "$wasm" ] || { echo "missing $wasm: build with emcmake first"; exit 1; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# Wall-clock fields differ by nature (INTERFACES.md); drop them before comparing.
strip() { python3 -c '
import json,sys
def s(j):
    if isinstance(j,dict): return {k:s(v) for k,v in j.items() if k not in ("elapsed_ms","solve_ms","dp_ms") and not k.endswith("_per_s")}
    if isinstance(j,list): return [s(v) for v in j]
    return j
text=open(sys.argv[1]).read()
try: print(json.dumps(s(json.loads(text)),indent=1))
except ValueError: print(text)
' "$1"; }
# One command: its result (empty when identical, else what differs) goes to $t/N.res.
compare_one() {
  local n=$1 line=$2 nrc wrc
  local args; read -r -a args <<<"$line"
  "$native" "${args[@]}" >"$t/$n.n.out" 2>"$t/$n.n.err"; nrc=$?
  node --no-experimental-fetch "$wasm" "${args[@]}" >"$t/$n.w.out" 2>"$t/$n.w.err"; wrc=$?
  if [ $nrc -ne $wrc ]; then
    { echo "DIFF  $line: exit $nrc native vs $wrc wasm"; head -3 "$t/$n.w.err"; } >"$t/$n.res"; return
  fi
  if ! cmp -s <(strip "$t/$n.n.out") <(strip "$t/$n.w.out") || ! cmp -s "$t/$n.n.err" "$t/$n.w.err"; then
    { echo "DIFF  $line"; diff <(strip "$t/$n.n.out") <(strip "$t/$n.w.out") | head -10; diff "$t/$n.n.err" "$t/$n.w.err" | head -4; } >"$t/$n.res"
    return
  fi
  : >"$t/$n.res"
}
# PARITY_JOBS commands at a time (each command is one process, then the other); results are
# printed in the file's order.
jobs_max=${PARITY_JOBS:-2}
n=0
while IFS= read -r line; do
  case "$line" in ""|\#*) continue;; esac
  n=$((n+1))
  compare_one "$n" "$line" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
done <tests/parity/commands.txt
wait
pass=0; fail=0
for i in $(seq 1 "$n"); do
  if [ -s "$t/$i.res" ]; then cat "$t/$i.res"; fail=$((fail+1)); elif [ -f "$t/$i.res" ]; then pass=$((pass+1)); else echo "LOST  command $i"; fail=$((fail+1)); fi
done
echo "parity: $pass identical, $fail different"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
