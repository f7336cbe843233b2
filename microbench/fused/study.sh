# What the scripts know of the fused study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_fused_runs_ranks=1
pk_fused_derive_targets() { echo pkbench_cost_model; }
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
# peer mode and ranks: --peer-mode=virtual --ranks=N too), scripts/regenerate.sh passes that file
# to the model.
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
# fused CSV, with this machine's link, HBM and latency ceilings (transfer/transfer.csv,
# sync/sync.csv), the GEMM's rate against its SMs (fused/gemm.csv, where measured) and the
# inter-SM reduction communicators' own rates (the communicator-only rows, measured by the same
# commit as the fused rows they predict). fused/cost_model_inputs.txt, where present, pairs
# them: lines "FUSED_CSV COMM_ONLY_CSV [FLAG...]", paths under fused/, the outputs beside
# FUSED_CSV (X_model.csv, X_splits.csv, X_model.txt). Without it: fused.csv, fused_table3.csv
# and fused_fig5.csv with fused/$PK_FUSED_COMM_ONLY_CSV (which scripts/run.sh's fused study
# writes), or without --comm-only where a CSV has no inter-SM GEMM+RS / GEMM+AR rows; "-" as
# COMM_ONLY_CSV: none.
pk_fused_regenerate() {
  local dir=$1 rc=0 model pairs line w x f gemm comm
  model=$(pk_bin cost_model)
  pairs=()
  if [ -f "$dir/fused/cost_model_inputs.txt" ]; then
    while IFS= read -r line; do
      case "$line" in ''|'#'*) continue ;; esac
      pairs+=("$line")
    done < "$dir/fused/cost_model_inputs.txt"
  else
    for f in fused fused_table3 fused_fig5; do
      [ -f "$dir/fused/$f.csv" ] || continue
      if [ -f "$dir/fused/$PK_FUSED_COMM_ONLY_CSV" ]; then
        pairs+=("$f.csv $PK_FUSED_COMM_ONLY_CSV")
        continue
      fi
      pk_fused_needs_comm_only "$dir/fused/$f.csv"
      case $? in
        1) pairs+=("$f.csv -") ;;
        0) pk_log "cost model on fused/$f.csv: not run (needs fused/$PK_FUSED_COMM_ONLY_CSV: the inter-SM communicators' rates; scripts/run.sh fused measures it)" ;;
        *) rc=1 ;;
      esac
    done
  fi
  for line in ${pairs[@]+"${pairs[@]}"}; do
    read -ra w <<< "$line"
    if [ ${#w[@]} -lt 2 ]; then
      echo "regenerate.sh: $dir/fused/cost_model_inputs.txt: '$line': not 'FUSED_CSV COMM_ONLY_CSV [FLAG...]'" >&2; rc=1; continue
    fi
    for x in "${w[@]:2}"; do
      case "$x" in --allow-mixed-commits|--allow-mixed-machines) ;;
        *) echo "regenerate.sh: $dir/fused/cost_model_inputs.txt: '$x': not a flag it may give" >&2; rc=1; continue 2 ;;
      esac
    done
    f=${w[0]%.csv}
    if [ ! -f "$dir/transfer/transfer.csv" ] || [ ! -f "$dir/sync/sync.csv" ]; then
      pk_log "cost model on fused/$f.csv: not run (needs transfer/transfer.csv and sync/sync.csv of this machine)"
      continue
    fi
    [ -x "$model" ] || { pk_log "pkbench_cost_model is not built here: fused/${f}_model.* not rewritten"; rc=1; continue; }
    gemm=() comm=()
    [ -f "$dir/fused/gemm.csv" ] && gemm=(--gemm "$dir/fused/gemm.csv")
    [ "${w[1]}" = - ] || comm=(--comm-only "$dir/fused/${w[1]}")
    # The printed model goes to its file only once complete (the CSVs are written whole by the tool).
    if "$model" --fused "$dir/fused/$f.csv" ${comm[@]+"${comm[@]}"} "${w[@]:2}" --transfer "$dir/transfer/transfer.csv" \
        --sync "$dir/sync/sync.csv" "${gemm[@]}" --out "$dir/fused/${f}_model.csv" --splits "$dir/fused/${f}_splits.csv" \
        > "$dir/fused/${f}_model.txt.tmp"; then
      mv "$dir/fused/${f}_model.txt.tmp" "$dir/fused/${f}_model.txt"
    else
      rm -f "$dir/fused/${f}_model.txt.tmp"; rc=1
    fi
  done
  return "$rc"
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
