#!/usr/bin/env bash
# A project that includes the generated tuning header: pkbench_tune writes the tables of a
# committed results folder (H200x2) and of the fixtures (transfer, collectives, fused), a
# small C++17 program is compiled against the header and pkbench/tuning.h alone, and its
# lookups are checked against the CSVs written beside it, the API's answers over the header
# against its answers over the JSON.
#   tuning_header.sh PKBENCH_TUNE CXX SOURCE_DIR WORK_DIR
set -euo pipefail
tune=$1 cxx=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$tune" --out "$work" "$src/results/h200x2/peer-modes/single" "$src/tests/fixtures/transfer_fixture.csv" \
  "$src/tests/fixtures/collectives_fixture.csv" "$src/tests/fixtures/fused_fixture.csv"
"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$work" -I"$src/tuning/include" "$src/tests/cpu/tuning_header_check.cpp" -o "$work/check"
"$work/check" "$work/transfer_tuning.csv" "$work/collectives_tuning.csv" "$work/fused_tuning.csv"
