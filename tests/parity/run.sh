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
    if isinstance(j,dict): return {k:s(v) for k,v in j.items() if k not in ("elapsed_ms","solve_ms") and not k.endswith("_per_s")}
    if isinstance(j,list): return [s(v) for v in j]
    return j
text=open(sys.argv[1]).read()
try: print(json.dumps(s(json.loads(text)),indent=1))
except ValueError: print(text)
' "$1"; }
pass=0; fail=0
while IFS= read -r line; do
  case "$line" in ""|\#*) continue;; esac
  read -r -a args <<<"$line"
  "$native" "${args[@]}" >"$t/n.out" 2>"$t/n.err"; nrc=$?
  node --no-experimental-fetch "$wasm" "${args[@]}" >"$t/w.out" 2>"$t/w.err"; wrc=$?
  if [ $nrc -ne $wrc ]; then
    echo "DIFF  $line: exit $nrc native vs $wrc wasm"; head -3 "$t/w.err"; fail=$((fail+1)); continue
  fi
  if ! cmp -s <(strip "$t/n.out") <(strip "$t/w.out") || ! cmp -s "$t/n.err" "$t/w.err"; then
    echo "DIFF  $line"; diff <(strip "$t/n.out") <(strip "$t/w.out") | head -10; diff "$t/n.err" "$t/w.err" | head -4
    fail=$((fail+1)); continue
  fi
  pass=$((pass+1))
done <tests/parity/commands.txt
echo "parity: $pass identical, $fail different"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
