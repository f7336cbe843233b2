#!/usr/bin/env bash
# scripts_study_names_fails.sh SOURCE_DIR: scripts_study_names.sh catches a study named in
# scripts/. On a copy of the tree's list (microbench/studies.list) and study folders, scripts/
# holding one file at a time must fail naming its line and study (a study's name alone, in a
# path, a function's name or a variable's, in any case, and a study folder that has no line of
# the list); a study's name in a comment, or inside a longer word, passes.
set -uo pipefail
src=${1:?usage: scripts_study_names_fails.sh SOURCE_DIR}
check=$src/tests/cli/scripts_study_names.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/microbench"
cp "$src/microbench/studies.list" "$work/microbench/"
for d in "$src"/microbench/*/; do
  [ -f "$d/CMakeLists.txt" ] && mkdir -p "$work/microbench/$(basename "$d")" && touch "$work/microbench/$(basename "$d")/CMakeLists.txt"
done
folder=scripts
clear_folder() { rm -rf "${work:?}/scripts"; }
# shellcheck source=/dev/null
source "$(dirname "$0")/expect_lib.sh"
expect 1 run.sh 'x=1
  fused) run_study fused "$dir/fused.csv" ;;' "scripts/run.sh:2: fused: names a study"
expect 1 regenerate.sh '"$tools/pkbench_sync_summary" "$dir/sync/sync.csv"' "scripts/regenerate.sh:1: sync: names a study"
expect 1 lib.sh 'pk_seqpar_ulysses_runs 4' "scripts/lib.sh:1: seqpar: names a study"
expect 1 lib.sh 'echo "$PK_FUSED_COMM_ONLY_CSV"' "scripts/lib.sh:1: FUSED: names a study"
expect 1 plots/fig.gp "set title 'transfer bandwidth'" "scripts/plots/fig.gp:1: transfer: names a study"
mkdir -p "$work/microbench/newstudy" && touch "$work/microbench/newstudy/CMakeLists.txt"
expect 1 run.sh 'echo newstudy' "scripts/run.sh:1: newstudy: names a study"
rm -rf "$work/microbench/newstudy"
expect 0 run.sh 'x=1  # the fused study; run_study transfer' "none of its 1 files names a study"
expect 0 run.sh 'async=1 gemma=2 transfers=3 step=4' "none of its 1 files names a study"
[ "$fail" = 0 ] && echo "PASS: scripts_study_names.sh catches a study named in scripts/"
exit "$fail"
