#!/usr/bin/env bash
# The figures redraw from a CSV alone (no GPU): plot.sh on a fixture writes both figures.
set -euo pipefail
root=$1 csv=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir"
cp "$csv" "$dir/transfer.csv"
"$root/scripts/plot.sh" "$dir"
for f in fig2_bandwidth_vs_message fig3_bandwidth_vs_sms; do
  for ext in png svg; do
    [ -s "$dir/$f.$ext" ] || { echo "missing $f.$ext"; exit 1; }
  done
done
