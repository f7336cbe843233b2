#!/usr/bin/env bash
# sweeps_study_files.sh SOURCE_DIR: sweeps/ keeps only the cross-study drivers (tune, report,
# compare, merge, the registry, the tuning tables' writers, ...); a study's analysis (reader,
# summary, targets, tuning table) and its summary tool live in microbench/<study>/ (e.g.
# microbench/transfer/transfer_analysis.*, transfer_summary_main.cpp). No file of sweeps/ is
# named after a study (<study>_*, <study>.*), the studies being those registered on the
# pk_sweeps_study(...) lines of sweeps/CMakeLists.txt and the folders of microbench/ with a
# CMakeLists.txt. File names only: what sweeps/ includes is layering.sh's.
# Prints each offence and exits 1; 0 when sweeps/ holds what it should.
set -uo pipefail
src=${1:?usage: sweeps_study_files.sh SOURCE_DIR}
cd "$src" || exit 2

studies=()
while read -r s; do studies+=("$s"); done < <(sed -nE 's/^[[:space:]]*pk_sweeps_study\([[:space:]]*([A-Za-z0-9_]+).*/\1/p' sweeps/CMakeLists.txt)
[ ${#studies[@]} -gt 0 ] || { echo "no pk_sweeps_study(...) line in sweeps/CMakeLists.txt (is the scan broken?)"; exit 2; }
registered=${#studies[@]}
for d in microbench/*/; do
  s=$(basename "$d")
  [ "$s" != harness ] && [ -f "$d/CMakeLists.txt" ] && ! printf '%s\n' "${studies[@]}" | grep -qx -- "$s" && studies+=("$s")
done
fail=0 n=0
for f in sweeps/*; do
  b=$(basename "$f")
  n=$((n + 1))
  for s in "${studies[@]}"; do
    case "$b" in "$s"_*|"$s".*) ;; *) continue ;; esac
    echo "sweeps/$b is named after the $s study: its place is microbench/$s/"
    fail=1
  done
done
[ "$fail" = 0 ] && echo "sweeps/: none of its $n files is named after a study (${registered} registered: ${studies[*]})"
exit "$fail"
