#!/usr/bin/env bash
# Installs everything autopar needs from Debian packages and the npm registry, idempotently:
# the native toolchain and header-only libraries, Emscripten, Chromium for browser tests,
# and the Dear ImGui 1.86 and GLPK 5.0 sources (Debian source packages) unpacked into third_party/.
# Quick when everything is already present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

need_pkgs=(cmake g++ make python3 nlohmann-json3-dev doctest-dev libglpk-dev glpk-utils
           emscripten node-acorn binaryen nodejs npm chromium fonts-dejavu-core fonts-wqy-microhei python3-fonttools clang libclang-rt-14-dev xz-utils)
missing=()
for p in "${need_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm may come with Node.js from elsewhere; only ask apt for it when no npm exists at all.
if command -v npm >/dev/null 2>&1; then
  tmp=(); for p in "${missing[@]}"; do [ "$p" = npm ] || [ "$p" = nodejs ] || tmp+=("$p"); done
  missing=("${tmp[@]+"${tmp[@]}"}")
fi

SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
updated=0
apt_update() { [ $updated -eq 1 ] || { $SUDO apt-get update -qq; updated=1; }; }

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Third-party sources for the WebAssembly build (never committed; third_party/ is git-ignored).
tp="$root/third_party"
mkdir -p "$tp"
if [ ! -f "$tp/imgui/imgui.cpp" ] || [ ! -f "$tp/glpk/src/glpk.h" ]; then
  if ! grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/; then
    echo "setup: enabling Debian source packages"
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources |
      $SUDO tee /etc/apt/sources.list.d/autopar-deb-src.sources >/dev/null
    updated=0
  fi
  apt_update
  dl="$tp/download"; mkdir -p "$dl"
  (cd "$dl" && apt-get source --download-only imgui glpk >/dev/null 2>&1 || apt-get source --download-only imgui glpk)
  if [ ! -f "$tp/imgui/imgui.cpp" ]; then
    rm -rf "$tp/imgui"; mkdir -p "$tp/imgui"
    tar -xf "$dl"/imgui_1.86*.orig.tar.xz -C "$tp/imgui" --strip-components=1
  fi
  if [ ! -f "$tp/glpk/src/glpk.h" ]; then
    rm -rf "$tp/glpk"; mkdir -p "$tp/glpk"
    tar -xf "$dl"/glpk_5.0*.orig.tar.gz -C "$tp/glpk" --strip-components=1
  fi
fi

# playwright-core drives Debian's Chromium; it never downloads a browser.
if [ ! -d "$root/tests/e2e/node_modules/playwright-core" ]; then
  echo "setup: installing playwright-core"
  (cd "$root/tests/e2e" && npm install --no-audit --no-fund --silent)
fi
echo "setup: ok"
