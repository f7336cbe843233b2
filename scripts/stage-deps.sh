#!/usr/bin/env bash
# Stages the header-only dependencies (scripts/lib.sh's PK_DEPS lines of kind "header":
# CLI11, nlohmann-json) into .deps/include, which CMake searches first, and the NVSHMEM wheel
# (nvidia-nvshmem-cu13) into .deps/wheels, for a build machine without package access: run it
# where apt and pip work, then carry .deps to the other machine (scripts/run.sh installs the
# wheel from there). scripts/run.sh and scripts/test.sh stage the headers themselves when they
# are not root.
#   scripts/stage-deps.sh
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
