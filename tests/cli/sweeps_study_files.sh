#!/usr/bin/env bash
# sweeps_study_files.sh SOURCE_DIR: sweeps/ keeps only the cross-study drivers (tune, report,
# compare, merge, verdict, format, ...); a study's analysis (reader, summary, targets, tables)
# lives in microbench/<study>/ (the gemm study's: microbench/gemm/gemm_analysis.*,
# analysis.cmake). No file of sweeps/ is named after a study (<study>_*, <study>.*), the studies
# being the folders of microbench/ with a CMakeLists.txt. The files not moved yet are listed
# below, one each; a listed file that is gone must leave the list too, so it only shrinks.
# Prints each offence and exits 1; 0 when sweeps/ holds what it should.
set -uo pipefail
src=${1:?usage: sweeps_study_files.sh SOURCE_DIR}
cd "$src" || exit 2

# The study-named files still in sweeps/ (to move into their study's folder).
not_moved_yet=(
  collectives_summary_main.cpp collectives_table.cpp collectives_table.h
  fused_summary_main.cpp fused_table.cpp fused_table.h
  primitives_summary_main.cpp
  sync_summary_main.cpp sync_table.cpp sync_table.h
  transfer_summary_main.cpp transfer_table.cpp transfer_table.h
)

studies=()
for d in microbench/*/; do
  s=$(basename "$d")
  [ "$s" != harness ] && [ -f "$d/CMakeLists.txt" ] && studies+=("$s")
done
[ ${#studies[@]} -gt 0 ] || { echo "no study folder under microbench/"; exit 2; }
fail=0 n=0
for f in sweeps/*; do
  b=$(basename "$f")
  for s in "${studies[@]}"; do
    case "$b" in "$s"_*|"$s".*) ;; *) continue ;; esac
    if printf '%s\n' "${not_moved_yet[@]}" | grep -qx -- "$b"; then
      n=$((n + 1))
    else
      echo "sweeps/$b is named after the $s study: its place is microbench/$s/"
      fail=1
    fi
  done
done
for b in "${not_moved_yet[@]}"; do
  [ -e "sweeps/$b" ] || { echo "sweeps/$b is listed as not moved yet but is gone: take it off the list in $0"; fail=1; }
done
[ "$fail" = 0 ] && echo "sweeps/: no study-named file but the ${n} listed as not moved yet (studies: ${studies[*]})"
exit "$fail"
