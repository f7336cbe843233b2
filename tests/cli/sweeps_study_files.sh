#!/usr/bin/env bash
# sweeps_study_files.sh SOURCE_DIR: sweeps/ keeps only the cross-study drivers (tune, report,
# compare, merge, the registry, the tuning tables' writers, ...); a study's analysis (reader,
# summary, targets, tuning table, its parts of the report) and its tools live in
# microbench/<study>/ (e.g. microbench/transfer/transfer_analysis.*, transfer_parts.cpp,
# transfer_summary_main.cpp), and the drivers reach it only through the registry (the studies'
# pk_sweeps_study(...) calls, microbench/<study>/study.cmake, their PARTS:
# microbench/harness/study_parts.h). The studies: those registered by those calls and the
# folders of microbench/ with a CMakeLists.txt. Checked in every file of sweeps/ but its
# CMakeLists.txt (which reads the registry):
#   - no file is named after a study (<study>_*, <study>.*);
#   - no code branches on a study's name: no string literal that is a study's name or starts
#     with it as a path or file ("fused", "transfer/...", "sync.csv", "ep_..."), comments aside;
#   - nothing includes a study's folder (#include "microbench/<study>/...") or names a study's
#     namespace (pk::transfer::, pk::coll::, ...: the namespaces of the registered functions).
# Prints each offence and exits 1; 0 when sweeps/ holds what it should.
set -uo pipefail
src=${1:?usage: sweeps_study_files.sh SOURCE_DIR}
cd "$src" || exit 2

# The registered studies and their namespaces (pk::<ns>::<columns function> on each line).
studies=() namespaces=()
while read -r s ns; do
  studies+=("$s")
  [ -n "$ns" ] && namespaces+=("$ns")
done < <(cat microbench/*/study.cmake 2>/dev/null |
  sed -nE 's/^[[:space:]]*pk_sweeps_study\([[:space:]]*([A-Za-z0-9_]+)[[:space:]]+[A-Za-z0-9_]+[[:space:]]+(pk::([A-Za-z0-9_]+)::)?.*/\1 \3/p')
[ ${#studies[@]} -gt 0 ] || { echo "no pk_sweeps_study(...) call in microbench/*/study.cmake (is the scan broken?)"; exit 2; }
[ ${#namespaces[@]} -gt 0 ] || { echo "no study namespace read from the pk_sweeps_study(...) lines (is the scan broken?)"; exit 2; }
registered=${#studies[@]}
for d in microbench/*/; do
  s=$(basename "$d")
  [ "$s" != harness ] && [ -f "$d/CMakeLists.txt" ] && ! printf '%s\n' "${studies[@]}" | grep -qx -- "$s" && studies+=("$s")
done
names=$(IFS='|'; echo "${studies[*]}")
spaces=$(printf '%s\n' "${namespaces[@]}" | sort -u | paste -sd'|' -)

fail=0 n=0
for f in sweeps/*; do
  b=$(basename "$f")
  n=$((n + 1))
  for s in "${studies[@]}"; do
    case "$b" in "$s"_*|"$s".*) ;; *) continue ;; esac
    echo "sweeps/$b is named after the $s study: its place is microbench/$s/"
    fail=1
  done
  [ "$b" = CMakeLists.txt ] && continue
  [ -f "$f" ] || continue
  # Code only: // comments dropped (a "..." holding // would hide the rest of its line).
  while IFS= read -r hit; do
    echo "sweeps/$b:$hit: branches on a study's name (its parts belong in microbench/<study>/, reached through PARTS)"
    fail=1
  done < <(sed -E 's://.*$::' "$f" | grep -nE "\"($names)([/._][^\"]*)?\"" | cut -d: -f1)
  while IFS= read -r hit; do
    echo "sweeps/$b:$hit: includes a study's folder or names its namespace (reach it through the registry)"
    fail=1
  done < <(sed -E 's://.*$::' "$f" | grep -nE "#include \"microbench/($names)/|\\bpk::($spaces)::" | cut -d: -f1)
done
[ "$fail" = 0 ] &&
  echo "sweeps/: none of its $n files is named after a study, branches on one's name or includes one's folder" \
       "(${registered} registered: ${studies[*]})"
exit "$fail"
