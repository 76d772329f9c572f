#!/usr/bin/env bash
# Installs what gpuplan needs to build and test on Debian 12, and nothing that is already there.
# Safe to run again: each step checks first. Usage: scripts/install-deps.sh [--torch]
#   --torch  also torchvision (CPU) for tools/torch_reference.py (PyTorch itself is installed by
#            default: the gpuplan-measure test runs a tiny model on the CPU)
# (--site is still accepted: mkdocs and mkdocs-material, for the documentation site, are now
# installed by default because make test builds the site.)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config git ca-certificates
          nlohmann-json3-dev libsodium-dev libgtest-dev googletest
          libglfw3-dev libgl-dev xvfb
          emscripten chromium
          clang-14 libclang-rt-14-dev python3
          libopenmpi-dev openmpi-bin python3-jsonschema
          python3-torch python3-yaml
          mkdocs mkdocs-material
          fonts-noto-cjk python3-fonttools)
for arg in "$@"; do
  case "$arg" in
    --site) ;;
    --torch) packages+=(python3-torchvision) ;;
    *) echo "install-deps: unknown option '$arg' (use --site or --torch)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node.js may come from elsewhere (e.g. NodeSource, whose nodejs bundles npm and conflicts with
# Debian's npm package): only the commands matter.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scripts/fetch-sources.sh

# Browser-test packages, exactly as locked; reinstalled only when the lockfile changed.
stamp=node_modules/.gpuplan-lock-sha
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "install-deps: npm ci (browser-test packages)" >&2
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  echo "$want" >"$stamp"
fi
