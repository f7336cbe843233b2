#!/usr/bin/env bash
# One call on a GPU machine: build only the GEMM targets (in /tmp, -j16), run the GEMM GPU
# tests, then pkbench_gemm (arguments after the script go to it), then optional group_m
# sweeps; logs and CSVs under $OUT; a short table last.
#   microbench/gemm/device-gemm.sh --shapes=8192x8192x8192 --sms=132,100
#   GEMM_SWEEP_GROUP_M="4 8 16 32" GEMM_SWEEP_ARGS="--shapes=8192x8192x8192 --sms=132" microbench/gemm/device-gemm.sh ...
# Needs CLI11 in .deps/include on machines without libcli11-dev (carry .deps).
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-/tmp/pk-gemm-out}
build=${GEMM_BUILD_DIR:-/tmp/pk-gemm-build}
mkdir -p "$out"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 ))s] $*"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv > "$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
stamp "configure"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_DEPS_DIR="$root/.deps" \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
stamp "build"
cmake --build "$build" --target pkbench_gemm pkbench_gemm_gpu_tests -j16 >> "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
stamp "GPU tests"
CUDA_MODULE_LOADING=EAGER timeout 120 "$build/tests/pkbench_gemm_gpu_tests" > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|error|Expected|Which is|against" "$out/gpu_tests.log" | head -40

stamp "benchmark"
CUDA_MODULE_LOADING=EAGER "$build/microbench/gemm/pkbench_gemm" --csv="$out/gemm.csv" "$@" > "$out/bench.log" 2>&1
echo "pkbench_gemm exit $?"
grep -E "error|fatal|gemm: shape" "$out/bench.log" | head -20

if [ -n "${GEMM_SWEEP_GROUP_M:-}" ]; then
  # Values may repeat (e.g. "16 4 8 16") to expose drift from the card heating up.
  i=0
  for g in $GEMM_SWEEP_GROUP_M; do
    i=$((i + 1))
    stamp "sweep $i: group_m=$g"
    # shellcheck disable=SC2086
    CUDA_MODULE_LOADING=EAGER "$build/microbench/gemm/pkbench_gemm" --impls=pkbench --group-m="$g" \
      --csv="$out/sweep_$i.csv" --study-warmup-ms=200 ${GEMM_SWEEP_ARGS:-} >> "$out/sweep.log" 2>&1
  done
  head -1 "$out/sweep_1.csv" > "$out/sweep.csv"
  for j in $(seq 1 "$i"); do tail -n +2 "$out/sweep_$j.csv" >> "$out/sweep.csv"; rm -f "$out/sweep_$j.csv"; done
fi
stamp "done"

# Short table: impl, variant, shape, SMs, group_m, median us, TFLOP/s, ratio to cuBLASLt, status.
table() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "%-9s %-3s %5sx%5sx%5s sms=%-3s g=%-3s %9s us %7s TF/s x%-6s cv=%-7s clk=%s-%s %s %s\n",
        $c["impl"], $c["variant"], $c["m"], $c["n"], $c["k"], $c["sms"], $c["group_m"], $c["time_us_median"],
        $c["tflops"], $c["ratio_to_cublas"], $c["cv"], $c["sm_clock_mhz_start"], $c["sm_clock_mhz_end"],
        $c["status"], substr($c["error"], 1, 80) }' "$1"
}
[ -f "$out/sweep.csv" ] && { echo "== group_m sweep"; table "$out/sweep.csv"; }
[ -f "$out/gemm.csv" ] && { echo "== pkbench_gemm"; table "$out/gemm.csv"; }
