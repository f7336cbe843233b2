#!/usr/bin/env bash
# Stages the header-only dependencies (scripts/lib.sh's PK_DEPS lines of kind "header":
# CLI11, nlohmann-json) into .deps/include, which CMake searches first, and the NVSHMEM wheel
# (nvidia-nvshmem-cu13) into .deps/wheels, for a build machine without package access: run it
# where apt and pip work, then carry .deps to the other machine (scripts/run.sh installs the
# wheel from there). scripts/run.sh and scripts/test.sh stage the headers themselves when they
# are not root.
# Also what nvbandwidth's build needs (scripts/build-ref-tools.sh uses them from .deps):
# Boost.program_options linked statically (Debian libboost-program-options1.74-dev's
# libboost_program_options.a, and from libboost1.74-dev only the headers program_options.hpp
# includes: a few MiB, not Boost's 170) into .deps/boost/{include,lib}, and nvml.h (PyPI
# nvidia-nvml-dev, a header only) into .deps/nvml (not .deps/include: the project declares its
# own NVML subset and must not see it).
#   scripts/stage-deps.sh
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mapfile -t pkgs < <(printf '%s\n' "$PK_DEPS" | awk -F'|' '$4 == "header" {print $3}')
pk_stage_headers "${pkgs[@]}"
echo "staged in $PKBENCH_ROOT/.deps/include: $(ls "$PKBENCH_ROOT/.deps/include" | tr '\n' ' ')"
if python3 -m pip download --no-deps -d "$PKBENCH_ROOT/.deps/wheels" "$PK_NVSHMEM_WHEEL" >/dev/null 2>&1; then
  echo "staged in $PKBENCH_ROOT/.deps/wheels: $(ls "$PKBENCH_ROOT/.deps/wheels" | tr '\n' ' ')"
else
  echo "stage-deps.sh: could not download $PK_NVSHMEM_WHEEL here (pip or PyPI unreachable): the NVSHMEM rows" \
    "are skipped where it is missing; on a machine with PyPI: python3 -m pip download --no-deps -d .deps/wheels $PK_NVSHMEM_WHEEL" >&2
fi

# Boost.program_options: the static library and the header closure of <boost/program_options.hpp>
# (what the compiler reads for it: g++ -M), from the Debian packages downloaded, not installed.
stage_boost() {
  local dest=$PKBENCH_ROOT/.deps/boost work x
  work=$(mktemp -d)
  x=$work/x
  if ! (cd "$work" && apt-get download libboost-program-options1.74-dev libboost1.74-dev >/dev/null 2>&1); then
    rm -rf "$work"
    return 1
  fi
  for d in "$work"/*.deb; do dpkg -x "$d" "$x"; done
  rm -rf "$dest"
  mkdir -p "$dest/lib" "$dest/include"
  cp "$x"/usr/lib/x86_64-linux-gnu/libboost_program_options.a "$dest/lib/" || { rm -rf "$work"; return 1; }
  printf '#include <boost/program_options.hpp>\n#include <boost/version.hpp>\n' |
    g++ -std=c++17 -M -I"$x/usr/include" -x c++ - 2>/dev/null | tr ' \\' '\n\n' | grep "^$x/usr/include/boost/" |
    sort -u | while read -r f; do install -D -m 644 "$f" "$dest/include/${f#"$x"/usr/include/}"; done
  rm -rf "$work"
  [ -f "$dest/include/boost/program_options.hpp" ] && [ -f "$dest/include/boost/version.hpp" ]
}
if stage_boost; then
  echo "staged in $PKBENCH_ROOT/.deps/boost: libboost_program_options.a and $(find "$PKBENCH_ROOT/.deps/boost/include" -type f | wc -l) headers ($(du -sh "$PKBENCH_ROOT/.deps/boost" | cut -f1))"
else
  echo "stage-deps.sh: could not stage Boost.program_options (apt-get download libboost-program-options1.74-dev" \
    "libboost1.74-dev failed here): nvbandwidth builds only where Boost is installed" >&2
fi
# nvml.h from the nvidia-nvml-dev wheel (header only; the library is the driver's, or a stub
# build-ref-tools.sh makes for linking).
work=$(mktemp -d)
mkdir -p "$PKBENCH_ROOT/.deps/nvml"
if python3 -m pip download --no-deps -d "$work" nvidia-nvml-dev >/dev/null 2>&1 &&
   python3 -c "import glob, sys, zipfile
z = zipfile.ZipFile(glob.glob(sys.argv[1] + '/*.whl')[0])
name = next(n for n in z.namelist() if n.endswith('/nvml.h'))
open(sys.argv[2], 'wb').write(z.read(name))" "$work" "$PKBENCH_ROOT/.deps/nvml/nvml.h"; then
  echo "staged in $PKBENCH_ROOT/.deps/nvml: nvml.h (nvidia-nvml-dev)"
else
  echo "stage-deps.sh: could not stage nvml.h (pip download nvidia-nvml-dev failed here): nvbandwidth builds" \
    "only where the CUDA toolkit's nvml.h is installed" >&2
fi
rm -rf "$work"
