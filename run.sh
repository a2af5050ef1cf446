#!/usr/bin/env bash
# Installs whatever is missing, builds the WebAssembly app and serves the playground on
# http://127.0.0.1:8000/ (Ctrl-C stops it). PORT=8080 ./run.sh picks another port.
set -euo pipefail
root=$(cd "$(dirname "$0")" && pwd)
cd "$root"
export NODE_PATH=/usr/share/nodejs
port=${PORT:-8000}

./scripts/setup.sh
emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-wasm -j2 --target autopar-web autopar-worker

echo
echo "autopar playground: http://127.0.0.1:$port/   (Ctrl-C stops it)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root"
