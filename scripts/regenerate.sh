#!/usr/bin/env bash
# Everything a results folder derives from its CSVs, by the layout's fixed names: the transfer
# summaries and tuning CSVs (every transfer.csv under transfer/, with the study's wall time from
# the timing.csv beside it), the peer modes side by side (peer_modes.md wherever single/, ipc/,
# vmm/ runs sit together under transfer/), the sync summary, the collectives verdicts, the
# primitives summary, the fused cost model, the tuning tables (tuning/command.txt, run from
# the repository root), the figures (scripts/plot.sh) and REPORT.md (scripts/report.sh).
# scripts/run.sh calls it after measuring; the regeneration test calls it on a copy of each
# committed machine folder and compares the results byte for byte.
#   scripts/regenerate.sh RESULTS_DIR [--no-figures]
# Run from the repository root (or a copy of it): the tools record the paths they are given.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
dir="" figures=1
for a in "$@"; do
  case "$a" in
    --no-figures) figures=0 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "regenerate.sh: error: unknown option '$a'" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "regenerate.sh: error: one RESULTS_DIR (got '$dir' and '$a')" >&2; exit 2; }; dir=$a ;;
  esac
done
[ -n "$dir" ] || { echo "usage: scripts/regenerate.sh RESULTS_DIR [--no-figures]" >&2; exit 2; }
[ -d "$dir" ] || { echo "regenerate.sh: error: no such folder: $dir" >&2; exit 2; }
dir=${dir%/}
tools=$(pk_bin_dir)
for t in pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_peer_modes pkbench_collectives_summary pkbench_report; do
  [ -x "$tools/$t" ] || pk_build pkbench_transfer_summary pkbench_sync_summary pkbench_tune pkbench_tune_loo pkbench_peer_modes pkbench_collectives_summary pkbench_report ||
    { echo "regenerate.sh: could not build the sweep tools" >&2; exit 1; }
done
status=0

# The transfer study's wall time with the build ("" if not recorded): in the timing.csv beside
# the CSV, the last row of its main run (step "transfer", or a part "transfer.<part>"; run.sh
# --as runs are named otherwise), as pkbench_report reads it.
elapsed_of() {
  [ -f "$1/timing.csv" ] || return 0
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["step"] == "transfer" || index($c["step"], "transfer.") == 1 { v = $c["seconds_with_build"] } END { print v }' "$1/timing.csv"
}
if [ -d "$dir/transfer" ]; then
  while IFS= read -r csv; do
    d=$(dirname "$csv")
    # shellcheck disable=SC2046  # no elapsed time: no argument
    "$tools/pkbench_transfer_summary" "$csv" "$d" $(elapsed_of "$d") > /dev/null || status=1
  done < <(find "$dir/transfer" -name transfer.csv | sort)
fi
# The peer modes side by side: every folder under transfer/ holding runs of two or more modes.
if [ -d "$dir/transfer" ]; then
  while IFS= read -r p; do
    modes=()
    for m in single ipc vmm; do [ -f "$p/$m/transfer.csv" ] && modes+=("$m=$p/$m"); done
    [ ${#modes[@]} -ge 2 ] && { "$tools/pkbench_peer_modes" "$p/peer_modes.md" "${modes[@]}" > /dev/null || status=1; }
  done < <(find "$dir/transfer" -mindepth 2 -name transfer.csv -path '*/single/*' -printf '%h\n' | xargs -r -n1 dirname | sort -u)
fi
if [ -f "$dir/sync/sync.csv" ]; then
  "$tools/pkbench_sync_summary" "$dir/sync/sync.csv" "$dir/sync" > /dev/null || status=1
fi
# The collectives verdicts (pkbench_collectives_summary): the study's main CSV first (the
# headline), then its other runs of the folder, in name order.
coll=$dir/collectives
if [ -f "$coll/collectives.csv" ]; then
  others=()
  # timing.csv is run.sh's record of the steps (run_study), not a collectives CSV.
  for f in "$coll"/*.csv; do
    case ${f##*/} in collectives.csv | timing.csv) ;; *) others+=("$f") ;; esac
  done
  "$tools/pkbench_collectives_summary" --out "$coll/verdicts.md" "$coll/collectives.csv" "${others[@]}" > /dev/null || status=1
fi
[ -f "$dir/ep/ep.csv" ] && { "$(pk_bin ep_summary)" "$dir/ep/ep.csv" "$dir/ep" > /dev/null || status=1; }
# The sequence-parallel summary: the ring's CSV and the Ulysses runs beside it.
if [ -f "$dir/seqpar/seqpar.csv" ]; then
  uly=()
  for f in "$dir"/seqpar/ulysses*.csv; do [ -f "$f" ] && uly+=(--ulysses "$f"); done
  "$(pk_bin seqpar_summary)" "$dir/seqpar/seqpar.csv" "$dir/seqpar" ${uly[@]+"${uly[@]}"} > /dev/null || status=1
fi
# The library-primitives summary: the study's main CSV, its rerun (run-to-run noise) and its
# one-process run where measured.
prim=$dir/primitives
if [ -f "$prim/primitives.csv" ]; then
  more=()
  for f in primitives_rerun primitives_single; do [ -f "$prim/$f.csv" ] && more+=("$prim/$f.csv"); done
  if [ -x "$tools/pkbench_primitives_summary" ]; then
    "$tools/pkbench_primitives_summary" "$prim/primitives.csv" "$prim" "${more[@]}" \
      > /dev/null || status=1
  else
    pk_log "pkbench_primitives_summary is not built here: primitives/primitives_summary.md not rewritten"; status=1
  fi
fi
# The cost model (Section 3.1.1) on every fused CSV, with this machine's link, HBM and latency
# ceilings (transfer/transfer.csv, sync/sync.csv), the GEMM's rate against its SMs
# (fused/gemm.csv, where measured) and the inter-SM reduction communicators' own rates (the
# communicator-only rows, measured by the same commit as the fused rows they predict).
# fused/cost_model_inputs.txt, where present, pairs them: lines "FUSED_CSV COMM_ONLY_CSV
# [FLAG...]", paths under fused/, the outputs beside FUSED_CSV (X_model.csv, X_splits.csv,
# X_model.txt). Without it: fused.csv, fused_table3.csv and fused_fig5.csv with
# fused/communicator_only_rs_ar.csv (microbench/fused/study.sh: PK_FUSED_COMM_ONLY_CSV, which
# scripts/run.sh's fused study writes), or without --comm-only where a CSV has no inter-SM GEMM+RS / GEMM+AR rows; "-" as
# COMM_ONLY_CSV: none.
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
    elif ! pk_fused_needs_comm_only "$dir/fused/$f.csv"; then
      pairs+=("$f.csv -")
    else
      pk_log "cost model on fused/$f.csv: not run (needs fused/$PK_FUSED_COMM_ONLY_CSV: the inter-SM communicators' rates; scripts/run.sh fused measures it)"
    fi
  done
fi
for line in ${pairs[@]+"${pairs[@]}"}; do
  read -ra w <<< "$line"
  if [ ${#w[@]} -lt 2 ]; then
    echo "regenerate.sh: $dir/fused/cost_model_inputs.txt: '$line': not 'FUSED_CSV COMM_ONLY_CSV [FLAG...]'" >&2; status=1; continue
  fi
  for x in "${w[@]:2}"; do
    case "$x" in --allow-mixed-commits|--allow-mixed-machines) ;;
      *) echo "regenerate.sh: $dir/fused/cost_model_inputs.txt: '$x': not a flag it may give" >&2; status=1; continue 2 ;;
    esac
  done
  f=${w[0]%.csv}
  if [ ! -f "$dir/transfer/transfer.csv" ] || [ ! -f "$dir/sync/sync.csv" ]; then
    pk_log "cost model on fused/$f.csv: not run (needs transfer/transfer.csv and sync/sync.csv of this machine)"
    continue
  fi
  [ -x "$model" ] || { pk_log "pkbench_cost_model is not built here: fused/${f}_model.* not rewritten"; status=1; continue; }
  gemm=() comm=()
  [ -f "$dir/fused/gemm.csv" ] && gemm=(--gemm "$dir/fused/gemm.csv")
  [ "${w[1]}" = - ] || comm=(--comm-only "$dir/fused/${w[1]}")
  # The printed model goes to its file only once complete (the CSVs are written whole by the tool).
  if "$model" --fused "$dir/fused/$f.csv" ${comm[@]+"${comm[@]}"} "${w[@]:2}" --transfer "$dir/transfer/transfer.csv" \
      --sync "$dir/sync/sync.csv" "${gemm[@]}" --out "$dir/fused/${f}_model.csv" --splits "$dir/fused/${f}_splits.csv" \
      > "$dir/fused/${f}_model.txt.tmp"; then
    mv "$dir/fused/${f}_model.txt.tmp" "$dir/fused/${f}_model.txt"
  else
    rm -f "$dir/fused/${f}_model.txt.tmp"; status=1
  fi
done
# tuning/command.txt: the pkbench_tune (and pkbench_tune_loo) lines that wrote tuning/, with
# build/bin/ (build/sweeps/ in the records written before the binaries moved there) standing
# for this build's tools.
if [ -f "$dir/tuning/command.txt" ]; then
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    read -ra cmd <<< "$line"
    case "${cmd[0]}" in
      build/bin/pkbench_tune|build/bin/pkbench_tune_loo|build/sweeps/pkbench_tune|build/sweeps/pkbench_tune_loo)
        cmd[0]=$tools/${cmd[0]##*/} ;;
      *) echo "regenerate.sh: $dir/tuning/command.txt: '${cmd[0]}' is not a tuning tool; not run" >&2; status=1; continue ;;
    esac
    "${cmd[@]}" > /dev/null || status=1
  done < "$dir/tuning/command.txt"
fi
if [ "$figures" = 1 ]; then
  if command -v gnuplot >/dev/null 2>&1; then
    "$PKBENCH_ROOT/scripts/plot.sh" "$dir" 2> /dev/null || pk_log "no figures drawn for $dir"
  else
    pk_log "gnuplot is not installed here: figures not drawn (apt install gnuplot-nox)"
  fi
fi
"$PKBENCH_ROOT/scripts/report.sh" "$dir" > /dev/null || status=1
exit "$status"
