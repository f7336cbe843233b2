#!/usr/bin/env bash
# The figures redraw from a CSV alone (no GPU): plot.sh on a fixture placed in the results
# layout (transfer/transfer.csv) writes both figures beside it.
set -euo pipefail
root=$1 csv=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir/transfer"
cp "$csv" "$dir/transfer/transfer.csv"
"$root/scripts/plot.sh" "$dir"
for f in fig2_bandwidth_vs_message fig3_bandwidth_vs_sms; do
  for ext in png svg; do
    [ -s "$dir/transfer/$f.$ext" ] || { echo "missing $f.$ext"; exit 1; }
  done
done
