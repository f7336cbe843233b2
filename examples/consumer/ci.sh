#!/usr/bin/env bash
# Install pkbench's tuning package to a temporary prefix (the header-only library alone:
# PKBENCH_TUNING_ONLY, no CUDA), build examples/consumer against it as an outside project,
# and run it on the H200x2 tables the package installs. Run by .ci/run.
#   examples/consumer/ci.sh [WORK_DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
rm -rf "$work/pkbench" "$work/prefix" "$work/consumer"
cmake -S "$src" -B "$work/pkbench" -DPKBENCH_TUNING_ONLY=ON
cmake --install "$work/pkbench" --prefix "$work/prefix"
cmake -S "$src/examples/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix"
cmake --build "$work/consumer"
# The tables come from the install (share/pkbench/tables), not from this source tree.
"$work/consumer/consumer" h200x2 "$work"/prefix/share/pkbench/tables/h200x2/{transfer,collectives,fused}_tuning.json
echo "consumer: built against $work/prefix and ran"
