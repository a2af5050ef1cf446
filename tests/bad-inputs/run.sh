#!/usr/bin/env bash
# The catalogue of bad inputs: every case must exit 2 with one `error:` line and the expected
# error code and JSON path, never crash or hang, and print the same natively and in WebAssembly.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
native=build/autopar
wasm=${WASM_CLI:-build-wasm/autopar-cli.js}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
python3 - "$t/huge.json" <<'PY'
import json, sys
ops = [{"name": "op%d" % i, "kind": "relu", "inputs": ["x" if i == 0 else "op%d" % (i - 1)], "output": "op%d" % i} for i in range(100000)]
json.dump({"name": "huge", "inputs": [{"name": "x", "shape": [4, 8]}], "ops": ops}, open(sys.argv[1], "w"))
PY
# One case: its result (empty when it gives its exact error, else the failure) goes to $t/N.res.
check_one() {
  local n=$1 code=$2 path=$3 cmd=$4 rc wrc got lines
  local args; read -r -a args <<<"$cmd"
  local out=$t/$n.out err=$t/$n.err
  timeout 60 "$native" "${args[@]}" --json >"$out" 2>"$err"; rc=$?
  got=$(python3 -c 'import json,sys
try: e=json.load(open(sys.argv[1]))["error"]; print(e["code"]+"|"+e["path"])
except Exception as x: print("no-json-error")' "$out")
  lines=$(wc -l <"$err")
  if [ $rc -ne 2 ] || [ "$got" != "$code|$path" ] || [ "$lines" -ne 1 ] || ! grep -q '^error: ' "$err"; then
    echo "FAIL  $cmd: exit $rc, got '$got', want '$code|$path'; stderr: $(head -c 300 "$err")" >"$t/$n.res"; return
  fi
  if [ -f "$wasm" ]; then
    timeout 120 node --no-experimental-fetch "$wasm" "${args[@]}" --json >"$t/$n.wout" 2>"$t/$n.werr"; wrc=$?
    if [ $wrc -ne 2 ] || ! cmp -s "$out" "$t/$n.wout" || ! cmp -s "$err" "$t/$n.werr"; then
      echo "FAIL  $cmd: WebAssembly differs (exit $wrc): $(head -c 300 "$t/$n.werr")" >"$t/$n.res"; return
    fi
  fi
  : >"$t/$n.res"
}
# BAD_INPUT_JOBS cases at a time; results are printed in the catalogue's order.
jobs_max=${BAD_INPUT_JOBS:-2}
n=0
while IFS='|' read -r code path cmd; do
  code=$(echo "$code" | xargs); path=$(echo "$path" | xargs); cmd=$(echo "$cmd" | sed 's/^ *//')
  case "$code" in ""|\#*) continue;; esac
  cmd=${cmd//\$HUGE/$t/huge.json}
  n=$((n+1))
  check_one "$n" "$code" "$path" "$cmd" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
done <tests/bad-inputs/catalogue.txt
wait
pass=0; fail=0
for i in $(seq 1 "$n"); do
  if [ -s "$t/$i.res" ]; then cat "$t/$i.res"; fail=$((fail+1)); elif [ -f "$t/$i.res" ]; then pass=$((pass+1)); else echo "LOST  case $i"; fail=$((fail+1)); fi
done
echo "bad inputs: $pass give their exact error, $fail do not"
[ $fail -eq 0 ] && [ $pass -ge 30 ]
