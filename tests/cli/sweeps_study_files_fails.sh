#!/usr/bin/env bash
# sweeps_study_files_fails.sh SOURCE_DIR: sweeps_study_files.sh catches each kind of offence.
# On a copy of the tree's registry (microbench/<study>/study.cmake) and study folders, sweeps/
# holding one offending file at a time (named after a study, a branch on a study's name, an
# include of a study's folder, a study's namespace) must fail naming it; a study's name in a
# comment passes.
set -uo pipefail
src=${1:?usage: sweeps_study_files_fails.sh SOURCE_DIR}
check=$src/tests/cli/sweeps_study_files.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sweeps"
cp "$src/sweeps/CMakeLists.txt" "$work/sweeps/"
for d in "$src"/microbench/*/; do
  [ -f "$d/CMakeLists.txt" ] && mkdir -p "$work/microbench/$(basename "$d")" && touch "$work/microbench/$(basename "$d")/CMakeLists.txt"
  [ -f "$d/study.cmake" ] && cp "$d/study.cmake" "$work/microbench/$(basename "$d")/"
done
folder=sweeps
clear_folder() { find "$work/sweeps" -mindepth 1 ! -name CMakeLists.txt -delete; }
# shellcheck source=/dev/null
source "$(dirname "$0")/expect_lib.sh"
expect 1 fused_table.cpp 'int x;' "is named after the fused study"
expect 1 tune.cpp 'bool f(const std::string& s) { return s == "fused"; }' "tune.cpp:1: branches on a study's name"
expect 1 tune.cpp 'const char* p = "transfer/transfer.csv";' "tune.cpp:1: branches on a study's name"
expect 1 report.cpp '#include "microbench/collectives/collectives_analysis.h"' "report.cpp:1: includes a study's folder"
expect 1 report.cpp 'auto t = pk::coll::collectives_tuning(p);' "report.cpp:1: includes a study's folder or names its namespace"
expect 0 report.cpp 'int x;  // "fused" and pk::coll:: in a comment' "none of its"
[ "$fail" = 0 ] && echo "PASS: sweeps_study_files.sh catches every kind of offence"
exit "$fail"
