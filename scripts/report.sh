#!/usr/bin/env bash
# Writes RESULTS_DIR/REPORT.md from the folder's CSVs (pkbench_report), beside another
# committed machine: OTHER_DIR, or by default the first other folder of results/, in name
# order, that holds a study CSV (<study>/<study>.csv): results/h200x2 is reported beside
# results/h100x1, results/h100x1 beside results/h200x1.
#   scripts/report.sh results/h200x2 [OTHER_DIR]
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dir=${1:-}
[ -n "$dir" ] || { echo "usage: scripts/report.sh RESULTS_DIR [OTHER_DIR]" >&2; exit 2; }
[ -d "$dir" ] || { echo "report.sh: error: no such folder: $dir" >&2; exit 2; }
other=${2:-}
if [ -z "$other" ]; then
  here=$(cd "$dir" && pwd)
  for d in "$PKBENCH_ROOT"/results/*/; do
    d=${d%/}
    [ "$(cd "$d" && pwd)" = "$here" ] && continue
    compgen -G "$d/*/*.csv" >/dev/null || continue
    other=$d
    break
  done
fi
[ -z "$other" ] || [ -d "$other" ] || { echo "report.sh: error: no such folder: $other" >&2; exit 2; }
tool=$(pk_bin report)
if [ ! -x "$tool" ]; then
  pk_ensure_deps >&2 || exit 1
  pk_build pkbench_report >&2 || { echo "report.sh: could not build pkbench_report" >&2; exit 1; }
fi
# Relative paths keep the report's command line free of this machine's layout.
rel() { realpath --relative-to="$PKBENCH_ROOT" "$1" 2>/dev/null || echo "$1"; }
cd "$PKBENCH_ROOT"
"$tool" "$(rel "$dir")" ${other:+--other "$(rel "$other")"}
