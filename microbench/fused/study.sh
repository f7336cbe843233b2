# What the scripts know of the fused study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_fused_runs_ranks=1
pk_fused_derive_targets() { echo pkbench_cost_model; }
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
# peer mode and ranks: --peer-mode=virtual --ranks=N too), scripts/regenerate.sh passes that file
# to the model.
PK_FUSED_COMM_ONLY_CSV=communicator_only_rs_ar.csv
# pk_fused_comm_only_flags [COMM_SMS]: pkbench_fused's flags for them, one a line (default comm
# SMs 4,8,16,32).
pk_fused_comm_only_flags() {
  printf '%s\n' --ops=gemm_rs,gemm_ar --schedules=inter_sm --shapes=4096x4096x64 "--comm-sms=${1:-4,8,16,32}" --samples=5
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
# communicator-only rows (impl inter_sm, op gemm_rs or gemm_ar, status ok, at least 2 GPUs or
# ranks: one GPU alone communicates nothing, and its rows would say nothing of the communicator).
pk_fused_needs_comm_only() {
  [ -f "$1" ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["impl"] == "inter_sm" && ($c["op"] == "gemm_rs" || $c["op"] == "gemm_ar") && $c["status"] == "ok" &&
    $c["gpus"] + 0 >= 2 { found = 1; exit }
    END { exit !found }' "$1"
}
