#!/usr/bin/env bash
# The regeneration test of one committed machine folder: scripts/regenerate.sh on a copy of
# results/ (summaries, tuning tables, figures, REPORT.md from the committed CSVs), then every
# committed file compared byte for byte with its regenerated copy. Figures are left out, with
# a message, where gnuplot is not installed. By design the one test that reads live results/.
#   regenerate_results.sh SOURCE_DIR BUILD_DIR MACHINE
set -uo pipefail
src=${1:?source dir} build=${2:?build dir} machine=${3:?machine folder name}
[ -d "$src/results/$machine" ] || { echo "no folder results/$machine" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A stand-in for the repository: the scripts and study plot scripts linked, every machine
# folder copied (the report reads the other machine beside it), so that the tools record the
# same relative paths they record in the repository.
ln -s "$src/scripts" "$work/scripts"
ln -s "$src/microbench" "$work/microbench"
cp -r "$src/results" "$work/results"
# As a folder run.sh has just written: its step record beside the collectives CSVs (a fresh
# run.sh folder once handed it to the collectives summary as a CSV of that study).
[ -f "$work/results/$machine/collectives/collectives.csv" ] &&
  echo "step,seconds,seconds_with_build,exit_code" > "$work/results/$machine/collectives/timing.csv"
figures=()
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "gnuplot is not installed here: figures (*.png, *.svg) not regenerated and not compared"
  figures=(--no-figures)
fi
(cd "$work" && PKBENCH_BUILD_DIR=$build bash scripts/regenerate.sh "results/$machine" "${figures[@]}") ||
  { echo "FAIL: scripts/regenerate.sh results/$machine exited non-zero"; exit 1; }
fail=0 n=0
while IFS= read -r -d '' f; do
  rel=${f#"$src/"}
  if [ "${#figures[@]}" -gt 0 ]; then case "$f" in *.png|*.svg) continue ;; esac; fi
  n=$((n + 1))
  if ! cmp -s "$f" "$work/$rel"; then
    echo "FAIL: $rel does not regenerate identically from the committed CSVs:"
    diff "$f" "$work/$rel" 2>/dev/null | head -n 6 | sed 's/^/    /'
    fail=1
  fi
done < <(find "$src/results/$machine" -type f -print0 | sort -z)
if [ "$fail" = 1 ]; then
  echo "regenerate and commit them: bash scripts/regenerate.sh results/$machine (from the repository root)"
  exit 1
fi
echo "results/$machine: all $n committed files match their regeneration"
