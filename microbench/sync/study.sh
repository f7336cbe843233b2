# What the scripts know of the sync study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/harness-cost.sh: cross_gpu only, what the virtual ranks add (the other levels are one GPU's).
pk_sync_harness_cost_flags() { printf '%s\n' "$@" --levels=cross_gpu; }
pk_sync_regenerate_tools() { echo pkbench_sync_summary; }
# pk_sync_regenerate DIR TOOLS (scripts/regenerate.sh): the sync summary.
pk_sync_regenerate() { pk_summarize sync "$@"; }
# scripts/run.sh's one-GPU profile: intra- and inter-SM sync, and across two virtual ranks.
pk_sync_one_gpu() {
  local dir=$1
  shift
  run_study sync "$dir/sync.csv" --iters=1000
  run_study sync "$dir/virtual/sync_virtual.csv" "$@" --levels=cross_gpu --iters=1000
}
# scripts/run.sh --quick on several GPUs: 1000 iterations per variant.
pk_sync_quick() { run_study sync "$1/sync.csv" --iters=1000; }
# scripts/plot.sh: the latency of every primitive of one sync CSV, beside it (exit 0 where it
# drew; plot.sh's helpers title_of and $work).
pk_sync_draw() {
  local csv=$1 tmp term
  tmp=$(mktemp -d -p "$work")
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}
    $c["status"]=="ok" && $c["level"]!="clock" && $c["one_way_ns"]!="" && $c["gbps"]=="" {
      label=$c["level"] "/" $c["primitive"] " " $c["scope"] " " $c["semantics"] " " $c["placement"] " x" $c["participants"]
      gsub(/ +/, " ", label); gsub(/ /, "_", label)
      lo = hi = $c["one_way_ns"]
      # p10/p90 describe what was timed (round trips for ping-pongs): scale them like the median.
      if ($c["p10_ns"] != "") { s = $c["round_trip_ns"] != "" ? 0.5 : 1; lo = $c["p10_ns"] * s; hi = $c["p90_ns"] * s }
      print NR-1, $c["one_way_ns"], lo, hi, label }' "$csv" > "$tmp/sync.dat"
  if [ -s "$tmp/sync.dat" ]; then
    for term in png svg; do
      gnuplot -e "data='$tmp/sync.dat'; out='$(dirname "$csv")/sync_latency.$term'; term='$term'; gpu='$(title_of "$csv")'" "$PKBENCH_ROOT/microbench/sync/sync.gp"
    done
    return 0
  fi
  return 1
}
# scripts/plot.sh: every sync CSV (the study's and each peer mode's, under transfer/peer-modes/).
pk_sync_plot() {
  local csv drew=1
  [ -f "$1/sync/sync.csv" ] && pk_sync_draw "$1/sync/sync.csv" && drew=0
  if [ -d "$1/transfer/peer-modes" ]; then
    while IFS= read -r csv; do pk_sync_draw "$csv" && drew=0; done < <(find "$1/transfer/peer-modes" -name sync.csv | sort)
  fi
  return "$drew"
}
# scripts/reproduce.sh's steps of the study (its plan's format; each line led by its place in
# the plan, the study's name left out).
pk_sync_reproduce_steps() {
  cat <<'EOF'
40|sync|Sync numbers of Section 3.1.3 (64 ns mbarrier, 832 ns inter-SM) and cross-GPU signals|1|5|||sync/sync.csv
EOF
}
