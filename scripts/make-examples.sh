#!/usr/bin/env bash
# Regenerates examples/models/*.json, examples/clusters/*.json and examples/scenarios/*.json
# from the built-in models, presets and lecture scenarios, using the native CLI. The unit tests check that each file loads to the same graph
# or cluster as its built-in, so run this after changing a built-in's defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ap=${AUTOPAR:-$root/build/autopar}
mkdir -p "$root/examples/models" "$root/examples/clusters"
for m in $("$ap" models --json | python3 -c 'import json,sys; print(" ".join(m["name"] for m in json.load(sys.stdin)["models"]))'); do
  "$ap" model --model "$m" --json >"$root/examples/models/$m.json"
done
for c in $("$ap" clusters --json | python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["clusters"]))'); do
  "$ap" cluster --cluster "$c" --json >"$root/examples/clusters/$c.json"
done
mkdir -p "$root/examples/scenarios"
"$ap" scenario --list --json | python3 -c '
import json, sys, os
out = sys.argv[1]
for s in json.load(sys.stdin)["scenarios"]:
    s["run"] = "autopar scenario " + s["name"]
    with open(os.path.join(out, s["name"] + ".json"), "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")
' "$root/examples/scenarios"
echo "examples regenerated"
