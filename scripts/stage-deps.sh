#!/usr/bin/env bash
# Stages the header-only dependencies (scripts/lib.sh's PK_DEPS lines of kind "header":
# CLI11, nlohmann-json) into .deps/include, which CMake searches
# first, for a build machine without package access: run it where apt works, then carry
# .deps to the other machine. scripts/run.sh and scripts/test.sh do this themselves when
# they are not root.
#   scripts/stage-deps.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mapfile -t pkgs < <(printf '%s\n' "$PK_DEPS" | awk -F'|' '$4 == "header" {print $3}')
pk_stage_headers "${pkgs[@]}"
echo "staged in $PKBENCH_ROOT/.deps/include: $(ls "$PKBENCH_ROOT/.deps/include" | tr '\n' ' ')"
