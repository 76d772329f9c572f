#!/usr/bin/env bash
# Fetches third-party sources that the build compiles but the repository never holds:
# Dear ImGui (and libsodium, for the WebAssembly build) from Debian's source packages.
# They are unpacked into a cache outside git, checked against pinned SHA-256 hashes, and
# reused on later runs. Usage: scripts/fetch-sources.sh [CACHE_DIR]
set -euo pipefail

cache=${1:-${GPUPLAN_CACHE:-$HOME/.cache/gpuplan}}
mkdir -p "$cache"

# name  debian-source-package  tarball  sha256  unpacked-dir
packages=(
  "imgui imgui imgui_1.86+ds.orig.tar.xz 0dace0e8e57d298eb6e93af12dc19420cb96330832f6495c733b90aeeef11f64 imgui-1.86"
  "libsodium libsodium libsodium_1.0.18.orig.tar.gz d59323c6b712a1519a5daf710b68f5e7fde57040845ffec53850911f10a5d4f4 libsodium-1.0.18"
)

apt_src_dir=""
apt_src_opts=()
prepare_apt_sources() {
  [ -n "$apt_src_dir" ] && return 0
  # A private deb-src list, so the system's apt configuration is left as it is.
  apt_src_dir=$(mktemp -d)
  mkdir -p "$apt_src_dir/lists/partial" "$apt_src_dir/parts"
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
      >"$apt_src_dir/parts/src.sources"
  else
    grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >"$apt_src_dir/parts/src.list"
  fi
  apt_src_opts=(-o "Dir::Etc::SourceParts=$apt_src_dir/parts" -o "Dir::State::Lists=$apt_src_dir/lists"
                -o "Dir::Etc::SourceList=/dev/null")
  apt-get "${apt_src_opts[@]}" update -qq
}

for entry in "${packages[@]}"; do
  read -r name srcpkg tarball sha dir <<<"$entry"
  if [ -f "$cache/$dir/.complete" ]; then
    continue
  fi
  if [ ! -f "$cache/$tarball" ]; then
    prepare_apt_sources
    echo "fetch-sources: downloading Debian source package '$srcpkg' into $cache" >&2
    (cd "$cache" && apt-get "${apt_src_opts[@]}" source --download-only -qq "$srcpkg" >/dev/null)
  fi
  actual=$(sha256sum "$cache/$tarball" | cut -d' ' -f1)
  if [ "$actual" != "$sha" ]; then
    echo "fetch-sources: $tarball has sha256 $actual, expected $sha; refusing to use it" >&2
    exit 1
  fi
  rm -rf "${cache:?}/$dir"
  tar -xf "$cache/$tarball" -C "$cache"
  touch "$cache/$dir/.complete"
  echo "fetch-sources: $name ready in $cache/$dir" >&2
done
[ -n "$apt_src_dir" ] && rm -rf "$apt_src_dir"
exit 0
