#!/usr/bin/env bash
# One call on a 2-GPU Hopper machine (nvidia-h200-x2): build only the fused study's targets
# (and the GEMM study it builds on) in /tmp, run the fused GPU tests alone (peer mode single)
# and under mpirun -np 2 (ipc, vmm), a short GEMM SM-count sweep for the cost model, a short
# sweep (preset smoke, single process and mpirun), a full sweep (default preset, then Table 3,
# under mpirun), the cost model; everything packed into $OUT/fused-results.tgz, the main
# files beside it (at most 8 come back), and a short table printed last.
#   bash microbench/fused/device-fused.sh
#   FUSED_SWEEP=short bash microbench/fused/device-fused.sh          # skip the full sweep
#   FUSED_FULL_ARGS="--sizes=8192 --comm-sms=4:32:+4" bash microbench/fused/device-fused.sh
# Environment: FUSED_SWEEP=short|full|both (default both), FUSED_FULL_ARGS (flags of the full
# sweep; default: the default preset; then Table 3 and Figure 5's presets), FUSED_TIME_LIMIT (seconds for the whole script, default
# 540: steps that would not fit are left out and say so), FUSED_BUILD_DIR, FUSED_JOBS.
# Needs CLI11 and the CSV parser in .deps/include (bash scripts/stage-deps.sh; carry .deps).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/pk-fused-out}
build=${FUSED_BUILD_DIR:-/tmp/pk-fused-build}
work=${FUSED_WORK_DIR:-/tmp/pk-fused-work}  # outside $OUT: only the files below come back (at most 8)
rm -rf "$work"
mkdir -p "$work" "$out"
t0=$(date +%s)
limit=${FUSED_TIME_LIMIT:-540}
left() { echo $(( limit - ($(date +%s) - t0) )); }
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*" | tee -a "$work/steps.log"; }
mpi=(mpirun -np 2 --allow-run-as-root -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST
  -x CUDA_MODULE_LOADING)
bin=$build/microbench/fused/pkbench_fused
# run NAME SECONDS CMD...: bounded by SECONDS and by what is left of the script's limit.
run() {
  local name=$1 secs=$2
  shift 2
  local l
  l=$(left)
  if [ "$l" -lt 30 ]; then
    stamp "skip $name: ${l}s left"
    return 0
  fi
  [ "$secs" -gt $((l - 20)) ] && secs=$((l - 20))
  stamp "$name (up to ${secs}s)"
  timeout "$secs" "$@" > "$work/$name.log" 2>&1
  local rc=$?
  stamp "$name: exit $rc"
  return 0
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv > "$work/gpu.txt" 2>&1
nvidia-smi topo -m >> "$work/gpu.txt" 2>&1
cat "$work/gpu.txt"
stamp "configure"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_DEPS_DIR="$root/.deps" \
  "-DPKBENCH_STUDIES=gemm;fused" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
stamp "build"
cmake --build "$build" --target pkbench_fused pkbench_fused_gpu_tests pkbench_cost_model pkbench_gemm pkbench_report \
  -j"${FUSED_JOBS:-32}" >> "$work/build.log" 2>&1 || { grep -E "error|Error" "$work/build.log" | head -40; exit 1; }

run gpu_tests_single 150 "$build/tests/pkbench_fused_gpu_tests"
run gpu_tests_mpi 200 "${mpi[@]}" "$build/tests/pkbench_fused_gpu_tests"
grep -hE "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|points verified|skipped " \
  "$work"/gpu_tests_*.log 2>/dev/null | head -40

# The GEMM's rate against its SM count, for the cost model's compute ceiling.
run gemm_sms 60 "$build/microbench/gemm/pkbench_gemm" --impls=pkbench --shapes=8192x8192x4096 \
  --sms=66,100,108,116,124,132 --samples=5 --study-warmup-ms=200 --csv="$work/gemm.csv"

sweep=${FUSED_SWEEP:-both}
if [ "$sweep" = short ] || [ "$sweep" = both ]; then
  run fused_smoke_single 90 "$bin" --preset=smoke --samples=3 --warmup-ms=20 --target-sample-ms=5 \
    --csv="$work/fused_smoke_single.csv"
  run fused_smoke_vmm 90 "${mpi[@]}" "$bin" --peer-mode=vmm --preset=smoke --samples=3 --warmup-ms=20 \
    --target-sample-ms=5 --csv="$work/fused_smoke_vmm.csv"
fi
if [ "$sweep" = full ] || [ "$sweep" = both ]; then
  # shellcheck disable=SC2086
  run fused_full 300 "${mpi[@]}" "$bin" --peer-mode=ipc --samples=7 ${FUSED_FULL_ARGS:-} --csv="$work/fused.csv"
  run fused_table3 120 "${mpi[@]}" "$bin" --peer-mode=ipc --preset=table3 --samples=5 --csv="$work/fused_table3.csv"
  run fused_fig5 200 "${mpi[@]}" "$bin" --peer-mode=ipc --preset=fig5 --samples=5 --csv="$work/fused_fig5.csv"
fi

# The cost model on what this machine measured: its GEMM and fused rows; link, HBM and
# latency ceilings from the committed H200x2 transfer and sync studies (same machine kind).
for f in fused fused_table3 fused_fig5 fused_smoke_single; do
  [ -s "$work/$f.csv" ] || continue
  gemm=()
  [ -s "$work/gemm.csv" ] && gemm=(--gemm "$work/gemm.csv")
  "$build/microbench/fused/pkbench_cost_model" --fused "$work/$f.csv" --transfer "$root/results/h200x2/transfer.csv" \
    --sync "$root/results/h200x2/sync.csv" "${gemm[@]}" --out "$work/${f}_model.csv" --splits "$work/${f}_splits.csv" \
    > "$work/${f}_model.txt" 2>&1
  stamp "cost model on $f.csv: exit $?"
done
stamp "done"

tar czf "$out/fused-results.tgz" -C "$work" .
for f in fused.csv fused_table3.csv fused_fig5.csv fused_model.txt steps.log; do
  [ -f "$work/$f" ] && cp "$work/$f" "$out/"
done
cat "$work"/gpu_tests_*.log 2>/dev/null | grep -E "^\[  (FAILED|PASSED) |tests? ran" > "$out/gpu_tests_summary.txt"

# Short table of the rows: op, impl, shape, comm SMs, median us, TFLOP/s, comm ratio, status. The
# speedups and targets come from the sweeps library's one rule (pkbench_report's targets, below).
table() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "%-8s %-20s %5sx%5sx%5s c=%-3s %9s us %7s TF/s ratio=%-6s %s %s\n",
        $c["op"], $c["impl"], $c["m"], $c["n"], $c["k"], $c["comm_sms"], $c["time_us_median"], $c["tflops"],
        $c["comm_ratio"], $c["status"], substr($c["error"], 1, 70) }' "$1"
}
for f in fused_smoke_single fused_smoke_vmm fused fused_table3 fused_fig5; do
  [ -s "$work/$f.csv" ] && { echo "== $f"; table "$work/$f.csv"; }
done
[ -s "$work/fused_model.txt" ] && sed -n '/When does/,$p' "$work/fused_model.txt" | head -60
# The fused targets by the suite's one rule (sweeps/verdict.h, sweeps/targets.cpp) on this run's CSVs.
[ -s "$work/fused.csv" ] && "$build/sweeps/pkbench_report" "$work" --out "$work/REPORT.md" > /dev/null &&
  sed -n '/^## Targets/,$p' "$work/REPORT.md"
cat "$work/steps.log"
