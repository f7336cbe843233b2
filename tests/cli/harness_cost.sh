#!/usr/bin/env bash
# harness_cost.sh SOURCE_DIR BUILD_DIR: scripts/harness-cost.sh refuses bad input (exit 2, the
# flag named) before it builds or runs anything, --list prints each study's command and plan
# without a GPU, and pkbench_report --harness-cost prints the cost of a folder's points (exit 2
# where no CSV has the cost columns).
src=$1
export PKBENCH_BUILD_DIR=$2
# shellcheck source=/dev/null
source "$(dirname "$0")/check_lib.sh"
hc=$src/scripts/harness-cost.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check help 0 "scripts/harness-cost.sh \[--ranks=N\]" "$hc" --help
check ranks_9 2 "--ranks=9: virtual ranks are 2 to 8" "$hc" --ranks=9 --out="$work/out"
check ranks_word 2 "--ranks=four: virtual ranks are 2 to 8" "$hc" --ranks=four
check studies_unknown 2 "--studies: unknown study 'bogus'" "$hc" --studies=sync,bogus --out="$work/out"
check studies_twice 2 "--studies=sync,sync: a study named twice" "$hc" --studies=sync,sync
check studies_empty 2 "--studies= names no study" "$hc" --studies=
check seconds_negative 2 "--study-seconds=-1: a whole number" "$hc" --study-seconds=-1 --out="$work/out"
check out_empty 2 "--out= names no folder" "$hc" --out=
check unknown_option 2 "unknown option '--frobnicate'" "$hc" --out="$work/out" --frobnicate
check positional 2 "unexpected argument 'collectives' \(studies go in --studies=LIST\)" "$hc" collectives
# Nothing was built or written by a refusal (four of them name $work/out).
[ -e "$work/out" ] && { echo "FAIL a refusal wrote $work/out"; fails=$((fails + 1)); }

bin=$PKBENCH_BUILD_DIR/bin
if [ -x "$bin/pkbench_collectives" ] && [ -x "$bin/pkbench_fused" ] && [ -x "$bin/pkbench_report" ]; then
  check list 0 "collectives: .*pkbench_collectives --peer-mode=virtual --ranks=4 --preset=main --csv=$work/out/collectives.csv" \
    "$hc" --list --studies=collectives,fused --out="$work/out"
  check list_plan 0 "^    plan: [0-9]+ points, about .* s" "$hc" --list --studies=fused --out="$work/out"
  check list_ranks_8 0 "--peer-mode=virtual --ranks=8 --preset=main" "$hc" --list --ranks=8 --studies=fused --out="$work/out"
  # Flags after -- go to every study, checked by its binary.
  check passthrough_bad 2 "--samples" "$hc" --list --studies=collectives --out="$work/out" -- --samples=0
  check passthrough 0 "--preset=main --samples=3 --csv=" "$hc" --list --studies=collectives --out="$work/out" -- --samples=3
  [ -e "$work/out" ] && { echo "FAIL --list wrote $work/out"; fails=$((fails + 1)); }
  if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    check no_gpu 3 "no NVIDIA GPU" "$hc" --studies=collectives --out="$work/out"
  fi

  report=$bin/pkbench_report
  mkdir -p "$work/none" "$work/some/collectives/virtual"
  echo "study,status,time_us" > "$work/none/collectives.csv"
  echo "collectives,ok,3" >> "$work/none/collectives.csv"
  check report_no_cost_columns 2 "no CSV under .* has the point-cost columns" "$report" --harness-cost "$work/none"
  { echo "study,status,peer_mode,gpu_count,wall_ms,timed_ms,harness_ms,harness_phases"
    echo "collectives,ok,virtual,4,14,4,10,setup:2 samples:5 other:7"
    echo "collectives,ok,virtual,4,26,4,22,setup:4 samples:5 other:17"
    echo "collectives,skipped,virtual,4,1,0,1,other:1"; } > "$work/some/collectives/virtual/collectives_virtual.csv"
  check report_cost 0 "\| \`collectives/virtual/collectives_virtual.csv\` \| collectives \| virtual \| 4 \| 2 \| 16 \| 20.8 \|" \
    "$report" --harness-cost "$work/some"
  check report_cost_writes_nothing 2 "--harness-cost writes nothing" "$report" --harness-cost "$work/some" --out "$work/x.md"
  [ -e "$work/some/REPORT.md" ] && { echo "FAIL --harness-cost wrote REPORT.md"; fails=$((fails + 1)); }
else
  echo "pkbench_collectives, pkbench_fused or pkbench_report not built: --list and the report not checked"
fi

# The run itself, on stand-ins: a GPU that nvidia-smi lists, study binaries that plan on --list
# and write two points of cost columns to --csv (sync fails, gemm outlives --study-seconds), and
# the real pkbench_report. Each study runs with its flags; the table covers every CSV; a failed
# or cut-off study makes the exit 1 and is named.
if [ -x "$bin/pkbench_report" ]; then
  fake=$work/fake
  mkdir -p "$fake/bin" "$fake/path"
  cp "$bin/pkbench_report" "$fake/bin/"
  cat > "$fake/path/nvidia-smi" <<'SMI'
#!/usr/bin/env bash
case "$*" in *-L*) echo "GPU 0: Stand-in H100 (UUID: GPU-0)" ;; *--query-gpu=name*) echo "Stand-in H100" ;; esac
SMI
  cat > "$fake/bin/study" <<'STUDY'
#!/usr/bin/env bash
name=$(basename "$0"); name=${name#pkbench_}
csv=
for a in "$@"; do
  case "$a" in
    --list) echo "$name: plan: 2 points, about 1 s (estimate)" >&2; exit 0 ;;
    --csv=*) csv=${a#--csv=} ;;
  esac
done
echo "$name ran: $*"
{ echo "study,status,peer_mode,gpu_count,wall_ms,timed_ms,harness_ms,harness_phases"
  echo "$name,ok,virtual,4,12,2,10,setup:3 other:9"
  echo "$name,ok,virtual,4,32,2,30,setup:5 other:27"; } > "$csv"
[ "$name" = sync ] && exit 1
[ "$name" = gemm ] && exec sleep 30
exit 0
STUDY
  chmod +x "$fake/path/nvidia-smi" "$fake/bin/study"
  for s in transfer sync collectives gemm; do ln -s study "$fake/bin/pkbench_$s"; done
  run() { PATH=$fake/path:$PATH PKBENCH_BUILD_DIR=$fake "$hc" "$@"; }
  check run_table 1 "\| \`collectives.csv\` \| collectives \| virtual \| 4 \| 2 \| 20 \| 28 \| 22 \| 2 \| other 18, setup 4 \|" \
    run --studies=collectives,transfer,sync,gemm --study-seconds=2 --out="$work/run" -- --samples=3
  check run_times 0 "sync [0-9]+s \(exit 1: .*sync.log\).*gemm [0-9]+s \(cut off by --study-seconds=2\)" \
    cat "$work/run/harness_cost.md"
  check run_flags 0 "collectives ran: --peer-mode=virtual --ranks=4 --preset=main --samples=3 --csv=$work/run/collectives.csv" \
    cat "$work/run/collectives.log"
  check run_gemm_one_gpu 0 "gemm ran: --preset=small --samples=3 --csv=" cat "$work/run/gemm.log"
  check run_ok 0 "Wall time per study: transfer [0-9]+s\\.$" run --ranks=2 --studies=transfer --out="$work/run2" -- --samples=3
  check run_ok_log 0 "transfer ran: --peer-mode=virtual --ranks=2" cat "$work/run2/transfer.log"
fi
exit $((fails > 0))
