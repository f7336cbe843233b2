#!/usr/bin/env bash
# Stages the header-only dependencies that a build machine without package access lacks
# (the GPU machines have CUDA, Google Benchmark, GoogleTest, Open MPI and NCCL, but not the
# Fast C++ CSV Parser, CLI11 or nlohmann-json) into .deps/include, which CMake searches
# first. Run on a machine with apt (here), then carry .deps to the GPU machine.
#   scripts/stage-deps.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(libfccp-dev libcli11-dev nlohmann-json3-dev)
mkdir -p "$root/.deps/include"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in "${pkgs[@]}"; do
  # Prefer what is installed here; else download the package without installing it.
  if dpkg -L "$p" >/dev/null 2>&1; then
    dpkg -L "$p" | grep '^/usr/include/' | while read -r f; do
      [ -f "$f" ] && install -D -m 644 "$f" "$root/.deps/include/${f#/usr/include/}"
    done
  else
    (cd "$work" && apt-get download "$p" >/dev/null && dpkg -x ./"$p"_*.deb "$work/x")
    cp -r "$work/x/usr/include/." "$root/.deps/include/"
  fi
done
grep -qx '/.deps/' "$root/.git/info/exclude" 2>/dev/null || { mkdir -p "$root/.git/info"; echo '/.deps/' >> "$root/.git/info/exclude"; }
echo "staged in $root/.deps/include: $(ls "$root/.deps/include" | tr '\n' ' ')"
