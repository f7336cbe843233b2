# What the scripts know of the fused study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_fused_runs_ranks=1
pk_fused_derive_targets() { echo pkbench_cost_model; }
pk_fused_regenerate_tools() { echo pkbench_cost_model; }
pk_fused_tuned=1
# scripts/run.sh's one-GPU profile: two virtual ranks, one size (the one_gpu preset).
pk_fused_one_gpu() {
  local dir=$1
  shift
  run_study fused "$dir/virtual/fused_virtual.csv" "$@" --preset=one_gpu
}
# Before scripts/run.sh's runs: an earlier run's communicator-only rows go (their commit is not this run's).
pk_fused_clean() { rm -f "$1/$PK_FUSED_COMM_ONLY_CSV"; }
# The main preset (the exhaustive grid stays the default preset); on three or more GPUs the
# GPU-count sweep 2..N in the same run (the scaling figure).
pk_fused_main_flags() {
  echo --preset=main
  [ "$1" -ge 3 ] && echo --gpu-counts=all
  true
}
# The fused cost model's communicator-only rows (pkbench_cost_model --comm-only): the inter-SM
# GEMM+RS / GEMM+AR communicators alone, their GEMM reduced to nothing (K = 64), over the comm
# SMs; T_comm of the inter-SM GEMM+RS / GEMM+AR points. Declared once: scripts/run.sh's fused
# study measures them into fused/$PK_FUSED_COMM_ONLY_CSV beside fused.csv (with the fused run's
# peer mode and ranks: --peer-mode=virtual --ranks=N too), scripts/regenerate.sh names that file
# to the model (pkbench_cost_model --regenerate DIR --comm-only-name), which pairs it.
PK_FUSED_COMM_ONLY_CSV=communicator_only_rs_ar.csv
# pk_fused_comm_only_flags: pkbench_fused's flags for them, one a line (its comm_only preset).
pk_fused_comm_only_flags() {
  printf '%s\n' --preset=comm_only --samples=5
}
# pk_fused_peer_flags FLAGS...: the flags of a fused run that say where its ranks are (--peer-mode,
# --ranks, --world, --gpu-counts; either spelling), one a line: the communicator-only run pairs
# with it (the cost model needs its rates at every GPU count the fused rows have).
pk_fused_peer_flags() {
  local prev=""
  for a in "$@"; do
    case "$prev" in --peer-mode|--ranks|--world|--gpu-counts) printf '%s\n' "$prev" "$a" ;; esac
    case "$a" in --peer-mode=*|--ranks=*|--world=*|--gpu-counts=*) printf '%s\n' "$a" ;; esac
    prev=$a
  done
}
# pk_fused_needs_comm_only CSV: whether a pkbench_fused CSV has rows the model predicts from the
# communicator-only rows: 0 yes, 1 no (or no such file), 2 when it cannot tell (the CSV unreadable
# or the model not built; logged). The rule is the model's own (needs_communicator), asked of the
# built pkbench_cost_model, so that the scripts and the model never disagree.
pk_fused_needs_comm_only() {
  local rc=0
  [ -f "$1" ] || return 1
  "$(pk_bin cost_model)" --needs-comm-only "$1" || rc=$?
  [ "$rc" -le 1 ] || { pk_log "fused: cannot tell whether $1 needs communicator-only rows (pkbench_cost_model --needs-comm-only: exit $rc)"; rc=2; }
  return "$rc"
}
# pk_fused_regenerate DIR TOOLS (scripts/regenerate.sh): the cost model (Section 3.1.1) on every
# fused CSV of DIR, paired with its communicator-only rows by the model itself
# (pkbench_cost_model --regenerate: fused/cost_model_inputs.txt where present, else
# fused/$PK_FUSED_COMM_ONLY_CSV), its outputs beside each fused CSV.
pk_fused_regenerate() {
  local model
  [ -d "$1/fused" ] || return 0  # another study's folder (run.sh STUDY): nothing to model
  model=$(pk_bin cost_model)
  [ -x "$model" ] || { pk_log "pkbench_cost_model is not built here: fused/*_model.* not rewritten"; return 1; }
  "$model" --regenerate "$1" --comm-only-name "$PK_FUSED_COMM_ONLY_CSV"
}
# After scripts/run.sh's main run: the communicator-only rows, where the fused CSV has inter-SM
# GEMM+RS / GEMM+AR rows: measured with that run's peer mode and ranks (FLAGS: its flags), into
# a temporary CSV renamed beside it once the run exited 0, so scripts/regenerate.sh never passes
# half-written rows to the model.
pk_fused_after_main() {
  local dir=$1 csv=$1/fused.csv final tmp peer=() flags=()
  shift 2
  final=$dir/$PK_FUSED_COMM_ONLY_CSV
  tmp=$dir/${PK_FUSED_COMM_ONLY_CSV%.csv}.tmp.csv
  pk_fused_needs_comm_only "$csv"
  case $? in
    0) ;;
    1) pk_log "fused: no inter-SM GEMM+RS / GEMM+AR rows on 2 or more GPUs: no communicator-only rows"; return 0 ;;
    *) pk_log "fused: the communicator-only rows not measured"; return 1 ;;
  esac
  rm -f "$tmp"
  mapfile -t peer < <(pk_fused_peer_flags "$@")
  mapfile -t flags < <(pk_fused_comm_only_flags)
  run_study fused "$tmp" ${peer[@]+"${peer[@]}"} "${flags[@]}"
  if [ "$last_rc" = 0 ] && [ -s "$tmp" ]; then
    mv -f "$tmp" "$final"
    echo "mv $(shown "$tmp") $(shown "$final")" >> "$dir/command.txt"
  else
    rm -f "$tmp"
    pk_log "fused: the communicator-only rows failed: the cost model is not run on the inter-SM GEMM+RS / GEMM+AR rows"
  fi
}
# scripts/plot.sh: the study's figures (its plot.sh); exit 0 where it drew them.
pk_fused_plot() {
  [ -f "$1/fused/fused.csv" ] || return 1
  "$PKBENCH_ROOT/microbench/fused/plot.sh" "$1/fused" >&2 ||
    { echo "plot.sh: microbench/fused/plot.sh $1/fused failed" >&2; return 1; }
}
# scripts/reproduce.sh's steps of the study (its plan's format; each line led by its place in
# the plan, the study's name left out).
pk_fused_reproduce_steps() {
  cat <<EOF
120|fig4|Figure 4: GEMM+RS and GEMM+AR, intra-SM vs inter-SM overlap (drawn from the rows of fig8 and fig9)|2|0||steps:fig8 fig9|fused/fused.csv
130|fig5|Figure 5: the SM split, inter-SM time against 2..32 communication SMs beside the baselines|2|55|--preset=fig5 --samples=5|mpi|fused/fused_fig5.csv
140|fig7|Figure 7: AG+GEMM against cuBLAS+NCCL, ours then ours, copy engine; N = 4096, 8192, 16384|2|20|--ops=ag_gemm --samples=7|mpi|fused/fused.csv
150|fig8|Figure 8: GEMM+RS against cuBLAS+NCCL and ours then ours; N = 4096, 8192, 16384|2|20|--ops=gemm_rs --samples=7|mpi|fused/fused.csv
160|fig9|Figure 9: GEMM+AR against cuBLAS+NCCL and ours then ours; N = 4096, 8192, 16384|2|20|--ops=gemm_ar --samples=7|mpi|fused/fused.csv
170|table3|Table 3: GEMM vs GEMM+RS over K (communication hidden from K >= sR/2B)|2|15|--preset=table3 --samples=5|mpi|fused/fused_table3.csv
180|comm_only|Section 3.1.1 cost model: the inter-SM GEMM+RS / GEMM+AR communicators alone (K = 64), their T_comm|2|10|$(pk_fused_comm_only_flags | paste -sd' ' -)|mpi|fused/$PK_FUSED_COMM_ONLY_CSV
EOF
}
pk_fused_reproduce_targets() { echo pkbench_cost_model; }
