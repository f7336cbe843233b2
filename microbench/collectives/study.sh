# What the scripts know of the collectives study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_collectives_runs_ranks=1
pk_collectives_uses_nvshmem=1
pk_collectives_derive_targets() { echo pkbench_collectives_summary; }
# The main preset (the exhaustive grid stays the full preset); on three or more GPUs the
# GPU-count sweep 2..N in the same run (the scaling figure).
pk_collectives_main_flags() {
  echo --preset=main
  [ "$1" -ge 3 ] && echo --gpu-counts=all
  true
}
pk_collectives_regenerate_tools() { echo pkbench_collectives_summary; }
# pk_collectives_regenerate DIR TOOLS (scripts/regenerate.sh): the verdicts
# (pkbench_collectives_summary): the study's main CSV first (the headline), then its other runs
# of the folder, in name order.
pk_collectives_regenerate() {
  local coll=$1/collectives others=() f
  [ -f "$coll/collectives.csv" ] || return 0
  # timing.csv is run.sh's record of the steps (run_study), not a collectives CSV.
  for f in "$coll"/*.csv; do
    case ${f##*/} in collectives.csv | timing.csv) ;; *) others+=("$f") ;; esac
  done
  "$2/pkbench_collectives_summary" --out "$coll/verdicts.md" "$coll/collectives.csv" ${others[@]+"${others[@]}"} > /dev/null
}
pk_collectives_tuned=1
# scripts/run.sh's one-GPU profile: two virtual ranks.
pk_collectives_one_gpu() {
  local dir=$1
  shift
  run_study collectives "$dir/virtual/collectives_virtual.csv" "$@" --preset=one_gpu --samples=5
}
# scripts/plot.sh: the study's figures (its plot.sh); exit 0 where it drew them.
pk_collectives_plot() {
  [ -f "$1/collectives/collectives.csv" ] || return 1
  "$PKBENCH_ROOT/microbench/collectives/plot.sh" "$1/collectives/collectives.csv" "$1/collectives" >&2 ||
    { echo "plot.sh: microbench/collectives/plot.sh $1/collectives/collectives.csv failed" >&2; return 1; }
}
# scripts/reproduce.sh's steps of the study (its plan's format; each line led by its place in
# the plan, the study's name left out).
pk_collectives_reproduce_steps() {
  cat <<'EOF'
60|fig6|Figure 6: BF16 all-reduce against NCCL, eager and graph, 4 KiB-1 GiB (and the design-overhead ablation)|2|90|--preset=fig6 --samples=7|mpi|collectives/collectives.csv
70|fig6all|Figure 6's view of the other collectives: all-gather, reduce-scatter, all-to-all against NCCL|2|50|--preset=fig6all --samples=7|mpi|collectives/collectives.csv
80|fig15|Figure 15: tensor-dimension all-gather against NCCL + reshape|2|5|--preset=fig15 --samples=7|mpi|collectives/collectives.csv
90|fig16|Figure 16: tensor-dimension reduce-scatter against NCCL + reshape|2|5|--preset=fig16 --samples=7|mpi|collectives/collectives.csv
100|fig17|Figure 17: 4-D (B, S, H, D) all-to-all against NCCL + reshape|2|5|--preset=fig17 --samples=7|mpi|collectives/collectives.csv
110|fig6nvls|Figure 6's NVSwitch in-network (multicast) all-reduce|2|0||multicast|collectives/collectives.csv
EOF
}
