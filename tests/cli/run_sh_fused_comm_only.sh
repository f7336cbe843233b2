#!/usr/bin/env bash
# scripts/run.sh fused without a GPU: the flow that feeds the cost model, with stand-ins for
# nvidia-smi, cmake, mpirun and every pkbench_* tool (each records its command line). Checks that the
# fused study measures the communicator-only rows (lib.sh's flags, the fused run's peer mode and
# ranks) into fused/communicator_only_rs_ar.csv through a temporary file, and that
# scripts/regenerate.sh hands the folder and that file's name to pkbench_cost_model --regenerate;
# that a failed communicator-only run leaves no file (the model is skipped with a log line); that a
# fused CSV without inter-SM GEMM+RS / GEMM+AR rows measures none. Which CSV needs those rows, and
# the pairing, the real pkbench_cost_model answers (--needs-comm-only, --regenerate; its pairing
# on real inputs: cost_model_regenerate.sh).
#   run_sh_fused_comm_only.sh SOURCE_DIR PKBENCH_COST_MODEL
set -uo pipefail
src=${1:?source dir}
export REAL_COST_MODEL=${2:?the built pkbench_cost_model}
source "$(dirname "$0")/check_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/path" "$T/build/bin"
touch "$T/build/CMakeCache.txt"
cat > "$T/path/nvidia-smi" <<'EOF'
#!/usr/bin/env bash
case "$*" in
  *-L*) for i in $(seq 0 $((${FAKE_GPUS:-2} - 1))); do echo "GPU $i: NVIDIA H200 (UUID: GPU-$i)"; done ;;
  *--query-gpu=name*) for i in $(seq 1 "${FAKE_GPUS:-2}"); do echo "NVIDIA H200"; done ;;
esac
exit 0
EOF
printf '#!/usr/bin/env bash\nexit 0\n' > "$T/path/cmake"
# mpirun: its command line into calls.log, then the tool once (one rank stands for all).
cat > "$T/path/mpirun" <<'EOF'
#!/usr/bin/env bash
echo "mpirun $*" >> "$FAKE_LOG"
while [ $# -gt 0 ] && [[ "$(basename "$1")" != pkbench_* ]]; do shift; done
exec "$@"
EOF
# Every tool: its command line into calls.log; pkbench_fused writes a CSV (--csv=), the
# communicator-only run (K = 64) failing where FAKE_COMM_FAIL=1, the main run with AG+GEMM rows
# alone where FAKE_AG_ONLY=1, its rows on FAKE_ROW_GPUS GPUs (default 2).
cat > "$T/tool" <<'EOF'
#!/usr/bin/env bash
[ "$(basename "$0") $1" = "pkbench_cost_model --needs-comm-only" ] && exec "$REAL_COST_MODEL" "$@"
echo "$(basename "$0") $*" >> "$FAKE_LOG"
[ "$(basename "$0") $1" = "pkbench_cost_model --regenerate" ] && exec "$REAL_COST_MODEL" "$@"
[ "$(basename "$0")" = pkbench_fused ] || exit 0
csv=""
for a in "$@"; do case "$a" in --csv=*) csv=${a#--csv=} ;; esac; done
comm=0
[[ " $* " == *" --preset=comm_only "* ]] && comm=1
[ "$comm" = 1 ] && [ "${FAKE_COMM_FAIL:-0}" = 1 ] && { printf 'study,op,impl\nfused,gemm_rs,inter_sm\n' > "$csv"; exit 1; }
op=gemm_rs
[ "$comm" = 0 ] && [ "${FAKE_AG_ONLY:-0}" = 1 ] && op=ag_gemm
# FAKE_FOREIGN=1: the main run's CSV has a column the fused study never writes (unreadable to the model).
[ "$comm" = 0 ] && [ "${FAKE_FOREIGN:-0}" = 1 ] && { printf 'study,op,bogus\nfused,gemm_rs,1\n' > "$csv"; exit 0; }
printf 'study,op,impl,gpus,m,n,k,comm_sms,time_us_median,status,git_commit\nfused,%s,inter_sm,%s,4096,4096,64,4,10,ok,%s\n' "$op" "${FAKE_ROW_GPUS:-2}" "$PKBENCH_GIT_COMMIT" > "$csv"
EOF
chmod +x "$T/path/nvidia-smi" "$T/path/cmake" "$T/path/mpirun" "$T/tool"
for t in fused cost_model merge transfer_summary sync_summary tune tune_loo peer_modes collectives_summary \
  primitives_summary report; do
  ln -s "$T/tool" "$T/build/bin/pkbench_$t"
done
export PATH=$T/path:$PATH PKBENCH_BUILD_DIR=$T/build PKBENCH_NO_INSTALL=1 PKBENCH_DEPS_DRY_RUN=1 FAKE_LOG=$T/calls.log

# run_case NAME [ENV=VALUE...] -- RUN.SH ARGS...: a fresh results folder with this machine's
# transfer and sync CSVs (the model needs them), a stale communicator-only CSV, then run.sh.
run_case() {
  local name=$1 envs=()
  shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  out=$T/$name
  rm -rf "$out"
  mkdir -p "$out/transfer" "$out/sync" "$out/fused"
  echo stale > "$out/transfer/transfer.csv"
  echo stale > "$out/sync/sync.csv"
  echo stale > "$out/fused/communicator_only_rs_ar.csv"
  : > "$FAKE_LOG"
  env "${envs[@]}" PKBENCH_OUT="$out" "$src/scripts/run.sh" fused "$@" > "$T/$name.log" 2>&1
  echo "exit $?" > "$T/$name.rc"
  cp "$FAKE_LOG" "$T/$name.calls"
}
comm_flags="--preset=comm_only --samples=5"

run_case real FAKE_GPUS=2 -- --samples=7
o=$T/real
check "real: the study's own run" 0 "^pkbench_fused --csv=$o/fused/fused.csv --samples=7$" cat "$T/real.calls"
check "real: the communicator-only rows, through a temporary file" 0 \
  "^pkbench_fused --csv=$o/fused/communicator_only_rs_ar.tmp.csv $comm_flags$" cat "$T/real.calls"
check "real: renamed beside fused.csv" 0 "^fused,gemm_rs,inter_sm,2,4096,4096,64,4,10,ok," cat "$o/fused/communicator_only_rs_ar.csv"
check "real: no temporary file left" 1 "" test -e "$o/fused/communicator_only_rs_ar.tmp.csv"
check "real: command.txt has both runs and the rename" 0 \
  "mv $o/fused/communicator_only_rs_ar.tmp.csv $o/fused/communicator_only_rs_ar.csv" cat "$o/fused/command.txt"
check "real: the model gets the folder and the rows' name" 0 \
  "^pkbench_cost_model --regenerate $o --comm-only-name communicator_only_rs_ar.csv$" cat "$T/real.calls"

check "real: one process per GPU under mpirun (the default where mpirun is found)" 0 \
  "^mpirun -np 2 .*-x NCCL_NVLS_ENABLE .*pkbench_fused --csv=$o/fused/fused.csv --samples=7$" cat "$T/real.calls"
check "real: the communicator-only rows in the same peer mode" 0 \
  "^mpirun -np 2 .*pkbench_fused --csv=$o/fused/communicator_only_rs_ar.tmp.csv " cat "$T/real.calls"

run_case single FAKE_GPUS=2 PKBENCH_PEER_MODE=single -- --samples=7
check "PKBENCH_PEER_MODE=single: one process" 1 "" grep -q "^mpirun" "$T/single.calls"
run_case single_flag FAKE_GPUS=2 -- --peer-mode=single
check "--peer-mode=single: one process" 1 "" grep -q "^mpirun" "$T/single_flag.calls"

run_case virtual FAKE_GPUS=1 -- --peer-mode=virtual --ranks=2 --sizes=4096
o=$T/virtual
check "virtual: same flags, the run's peer mode and ranks" 0 \
  "^pkbench_fused --csv=$o/fused/communicator_only_rs_ar.tmp.csv --peer-mode=virtual --ranks=2 $comm_flags$" cat "$T/virtual.calls"
check "virtual: the model gets the folder and the rows' name" 0 \
  "^pkbench_cost_model --regenerate $o --comm-only-name communicator_only_rs_ar.csv$" cat "$T/virtual.calls"
check "virtual: one process" 1 "" grep -q "^mpirun" "$T/virtual.calls"

run_case counts FAKE_GPUS=4 -- --gpu-counts=all
o=$T/counts
check "GPU-count sweep: the communicator-only rows at every count too" 0 \
  "pkbench_fused --csv=$o/fused/communicator_only_rs_ar.tmp.csv --gpu-counts=all $comm_flags$" cat "$T/counts.calls"

run_case failed FAKE_GPUS=2 FAKE_COMM_FAIL=1 --
o=$T/failed
check "failed: the stale rows not kept" 1 "" test -e "$o/fused/communicator_only_rs_ar.csv"
check "failed: the half-written rows not kept" 1 "" test -e "$o/fused/communicator_only_rs_ar.tmp.csv"
check "failed: the model skipped, saying why" 0 "cost model on fused/fused.csv: not run \(needs fused/communicator_only_rs_ar.csv" cat "$T/failed.log"
check "failed: no model written" 1 "" test -e "$o/fused/fused_model.txt"

run_case ag FAKE_GPUS=2 FAKE_AG_ONLY=1 -- --ops=ag_gemm
o=$T/ag
check "AG+GEMM alone: no communicator-only run" 1 "" grep -q -- "--preset=comm_only" "$T/ag.calls"
check "AG+GEMM alone: the model run (the stale ceilings refused)" 0 "pkbench_cost_model: error: .*$o/(transfer|sync)/" cat "$T/ag.log"
check "AG+GEMM alone: not skipped for want of communicator-only rows" 1 "" grep -q "not run (needs fused/" "$T/ag.log"

run_case one FAKE_GPUS=1 FAKE_ROW_GPUS=1 --
check "one GPU, one rank (nothing communicated): no communicator-only run" 1 "" grep -q -- "--preset=comm_only" "$T/one.calls"
check "one GPU, one rank: says why" 0 "no communicator-only rows" cat "$T/one.log"
for c in ag one real; do
  check "$c: the model answered whether the rows are needed" 1 "" grep -q "cannot tell" "$T/$c.log"
done

run_case foreign FAKE_GPUS=2 FAKE_FOREIGN=1 --
check "a fused CSV the model cannot read: says so" 0 "cannot tell whether .*fused.csv needs communicator-only rows" cat "$T/foreign.log"
check "a fused CSV the model cannot read: no communicator-only run" 1 "" grep -q -- "--preset=comm_only" "$T/foreign.calls"
check "a fused CSV the model cannot read: run.sh fails" 0 "exit 1" cat "$T/foreign.rc"

# Another study's folder (run.sh STUDY on a fresh build) has nothing for the model: regenerate.sh
# succeeds where pkbench_cost_model is not built (it once failed the whole run for it).
rm -f "$T/build/bin/pkbench_cost_model"
mkdir -p "$T/nofused/sync"
check "no fused folder: regenerate.sh succeeds without the model" 0 "" "$src/scripts/regenerate.sh" "$T/nofused" --no-figures
check "no fused folder: the model not asked for" 1 "" grep -q "pkbench_cost_model is not built" <("$src/scripts/regenerate.sh" "$T/nofused" --no-figures 2>&1)
exit $((fails > 0))
