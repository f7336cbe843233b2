#!/usr/bin/env bash
# results_layout.sh SOURCE_DIR: results/ holds data. No experiments/ folder, no *.patch, no
# per-call folder (call1, call2, ...): re-checks and experiments are commits, cited as
# COMMIT:PATH. And at most 25 files per machine and study folder on average
# (results/<machine>/<study>/, tests/ and tuning/ counted as studies).
# Prints each offence and exits 1; 0 when the layout holds.
set -uo pipefail
src=${1:?usage: results_layout.sh SOURCE_DIR}
cd "$src/results" 2>/dev/null || { echo "no folder $src/results" >&2; exit 2; }
fail=0
while IFS= read -r p; do
  echo "not data: results/${p#./}"; fail=1
done < <(find . \( -type d \( -name experiments -o -regex '.*/call[0-9][^/]*' \) -o -type f -name '*.patch' \) -print | sort)
folders=0 files=0
for d in */*/; do
  [ -d "$d" ] || continue
  folders=$((folders + 1))
  files=$((files + $(find "$d" -type f | wc -l)))
done
if [ "$folders" -gt 0 ] && [ "$files" -gt $((25 * folders)) ]; then
  echo "results/: $files files in $folders machine/study folders, more than 25 on average"; fail=1
fi
[ "$fail" = 0 ] && echo "results/: $files files in $folders machine/study folders, no experiments, patches or per-call folders"
exit "$fail"
