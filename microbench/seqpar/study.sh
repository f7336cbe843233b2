# What the scripts know of the seqpar study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_seqpar_runs_ranks=1
pk_seqpar_derive_targets() { echo pkbench_seqpar_summary pkbench_collectives; }
pk_seqpar_main_flags() { echo --preset=main; }
# pk_seqpar_ulysses_runs NGPU: the sequence-parallel study's Ulysses runs on a machine of NGPU
# GPUs (pkbench_collectives' ulysses presets, microbench/seqpar/README.md), one a line: the CSV's
# name, then its flags. Every count 2..N; the 4-D all-to-all splits H = 128 over the ranks, so it
# sits out the counts that do not divide 128 (pkbench_collectives says so) where the column
# all-gather / reduce-scatter run; the layer shape (the all-to-all alone) runs at 2, 4, 8.
pk_seqpar_ulysses_runs() {
  local n=$1 k counts=""
  for k in 2 4 8; do [ "$k" -le "$n" ] && counts+="${counts:+,}$k"; done
  [ -n "$counts" ] || return 0
  # The presets' own sizes (S per rank 1K..128K doubling): a size list given as a flag is taken
  # exactly, and the column layouts' sizes must then split over every count (3 ranks too).
  echo "ulysses --preset=ulysses --gpu-counts=all"
  echo "ulysses_layer --preset=ulysses_layer --gpu-counts=$counts"
}
# pk_seqpar_regenerate DIR TOOLS (scripts/regenerate.sh): the sequence-parallel summary: the
# ring's CSV and the Ulysses runs beside it.
pk_seqpar_regenerate() {
  local uly=() f
  [ -f "$1/seqpar/seqpar.csv" ] || return 0
  for f in "$1"/seqpar/ulysses*.csv; do [ -f "$f" ] && uly+=(--ulysses "$f"); done
  "$(pk_bin seqpar_summary)" "$1/seqpar/seqpar.csv" "$1/seqpar" ${uly[@]+"${uly[@]}"} > /dev/null
}
# scripts/run.sh's one-GPU profile: two virtual ranks, the ring's smoke preset and Ulysses' collectives.
pk_seqpar_one_gpu() {
  local dir=$1
  shift
  run_study seqpar "$dir/virtual/seqpar_virtual.csv" "$@" --preset=smoke
  bin=collectives run_study seqpar "$dir/virtual/ulysses_virtual.csv" "$@" --preset=ulysses_one_gpu --samples=5
}
# After scripts/run.sh's main run, when the study runs alone (scripts/run.sh seqpar; the main
# job has no time for these minutes): the Ulysses collectives (pk_seqpar_ulysses_runs), the
# collectives study's binary on its ulysses presets, each CSV beside seqpar.csv (ulysses*.csv,
# which scripts/regenerate.sh passes to pkbench_seqpar_summary).
pk_seqpar_after_main() {
  local dir=$1 name flags
  [ "$2" = 1 ] || return 0
  while read -r name flags; do
    [ -n "$name" ] || continue
    # shellcheck disable=SC2086  # the flags are words without spaces
    bin=collectives run_study seqpar "$dir/$name.csv" $flags
  done < <(pk_seqpar_ulysses_runs "$ngpu")
}
# scripts/plot.sh: the study's figures (its plot.sh); exit 0 where it drew them.
pk_seqpar_plot() {
  [ -f "$1/seqpar/seqpar.csv" ] || compgen -G "$1/seqpar/ulysses*.csv" >/dev/null || return 1
  "$PKBENCH_ROOT/microbench/seqpar/plot.sh" "$1/seqpar" >&2 ||
    { echo "plot.sh: microbench/seqpar/plot.sh $1/seqpar failed" >&2; return 1; }
}
