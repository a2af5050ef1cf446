#!/usr/bin/env bash
# Regenerates examples/models/*.json and examples/clusters/*.json from the built-in models and
# presets, using the native CLI. The unit tests check that each file loads to the same graph
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
echo "examples regenerated"
