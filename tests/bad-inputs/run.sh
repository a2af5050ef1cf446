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
pass=0; fail=0
while IFS='|' read -r code path cmd; do
  code=$(echo "$code" | xargs); path=$(echo "$path" | xargs); cmd=$(echo "$cmd" | sed 's/^ *//')
  case "$code" in ""|\#*) continue;; esac
  cmd=${cmd//\$HUGE/$t/huge.json}
  read -r -a args <<<"$cmd"
  timeout 60 "$native" "${args[@]}" --json >"$t/out" 2>"$t/err"; rc=$?
  got=$(python3 -c 'import json,sys
try: e=json.load(open(sys.argv[1]))["error"]; print(e["code"]+"|"+e["path"])
except Exception as x: print("no-json-error")' "$t/out")
  lines=$(wc -l <"$t/err")
  if [ $rc -ne 2 ] || [ "$got" != "$code|$path" ] || [ "$lines" -ne 1 ] || ! grep -q '^error: ' "$t/err"; then
    echo "FAIL  $cmd: exit $rc, got '$got', want '$code|$path'; stderr: $(head -c 300 "$t/err")"; fail=$((fail+1)); continue
  fi
  if [ -f "$wasm" ]; then
    timeout 120 node --no-experimental-fetch "$wasm" "${args[@]}" --json >"$t/wout" 2>"$t/werr"; wrc=$?
    if [ $wrc -ne 2 ] || ! cmp -s "$t/out" "$t/wout" || ! cmp -s "$t/err" "$t/werr"; then
      echo "FAIL  $cmd: WebAssembly differs (exit $wrc): $(head -c 300 "$t/werr")"; fail=$((fail+1)); continue
    fi
  fi
  pass=$((pass+1))
done <tests/bad-inputs/catalogue.txt
echo "bad inputs: $pass give their exact error, $fail do not"
[ $fail -eq 0 ] && [ $pass -ge 30 ]
