#!/usr/bin/env bash
# The fused `tuned` schedule (issue 21) on ONE GPU with 2 virtual ranks, end to end: build; the
# tuned GPU test; a small sweep -> pkbench_tune --allow-virtual -> a run with --tuning-table at
# sizes the table measured (2048, 4096), between them (3072: interpolated) and outside it
# (1024: a skipped row with the reason) -> the summary's Tuned section; then the table refused
# with exit 2 before any point runs, by a real machine (peer mode single) and by 3 virtual
# ranks. One call on nvidia-h100-x1 (or nvidia-h200), carrying .deps:
#   bash microbench/fused/device-tuned-virtual.sh
# Everything lands in $OUT (logs, CSVs, the table, summary.md); the last lines say what ran.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
export CUDA_DEVICE_MAX_CONNECTIONS=32 PKBENCH_VIRTUAL_RANKS=2  # virtual ranks: the tests' settings (peer_group.h)
B=${TUNED_BUILD_DIR:-/tmp/pk-tuned-build}
W=${OUT:-/tmp/pk-tuned-out}
mkdir -p "$W"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$W/steps.log"; }

cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a -DPKBENCH_DEPS_DIR="$PWD/.deps" \
  "-DPKBENCH_STUDIES=gemm;fused" >"$W/configure.log" 2>&1 || { tail -20 "$W/configure.log"; exit 1; }
cmake --build "$B" -j16 --target pkbench_fused pkbench_fused_gpu_tests pkbench_tune pkbench_fused_summary \
  >"$W/build.log" 2>&1 || { grep -m20 -A5 error "$W/build.log"; exit 1; }
stamp built
F=$B/bin/pkbench_fused

timeout 120 "$B/bin/pkbench_fused_gpu_tests" '--gtest_filter=PeerModes/FusedGpu.TunedRunsWhatTheTableAnswers/*' \
  >"$W/test_tuned.log" 2>&1
stamp "tuned GPU test (2 virtual ranks): rc=$? $(grep -E '^\[ +(OK|FAILED|SKIPPED) +\]' "$W/test_tuned.log" | tr -s ' ' | tr '\n' ' ')"

common=(--peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=intra_sm,inter_sm --comm-sms=4,16 --samples=5)
timeout 150 "$F" "${common[@]}" --sizes=2048,4096 --csv="$W/sweep.csv" >"$W/sweep.log" 2>&1
stamp "sweep: rc=$? $(grep -c ',ok,' "$W/sweep.csv") ok rows"
"$B/bin/pkbench_tune" --allow-virtual --out "$W" "$W/sweep.csv" >"$W/tune.log" 2>&1
stamp "pkbench_tune --allow-virtual: rc=$? machines $(grep -o '"h[0-9a-z]*x[0-9]*-virtual[0-9]*"' "$W/fused_tuning.json" | sort -u | tr '\n' ' ')"
timeout 200 "$F" "${common[@]}" --sizes=1024,2048,3072,4096 --tuning-table="$W/fused_tuning.json" --csv="$W/tuned.csv" \
  >"$W/tuned.log" 2>&1
stamp "tuned run: rc=$?"
"$B/bin/pkbench_fused_summary" "$W/tuned.csv" >"$W/summary.md" 2>&1
stamp "summary: rc=$?"
sed -n '/^## Tuned/,$p' "$W/summary.md"

# The table refused before any point runs (exit 2, no CSV written).
timeout 60 "$F" --peer-mode=single --ops=gemm_rs --schedules=intra_sm --sizes=2048 --tuning-table="$W/fused_tuning.json" \
  --csv="$W/refused_single.csv" >"$W/refused_single.log" 2>&1
stamp "real machine reading the virtual table: rc=$? (2 expected) $(grep -o 'never tuning input for a real machine' "$W/refused_single.log" | head -1)"
timeout 60 "$F" --peer-mode=virtual --ranks=3 --ops=gemm_rs --schedules=intra_sm --sizes=3072 \
  --tuning-table="$W/fused_tuning.json" --csv="$W/refused_3.csv" >"$W/refused_3.log" 2>&1
stamp "3 virtual ranks reading the 2-rank table: rc=$? (2 expected) $(grep -o 'not on h[0-9a-z]*x[0-9]*-virtual3' "$W/refused_3.log" | head -1)"
ls "$W"/refused_*.csv 2>/dev/null && echo "UNEXPECTED: a refused run wrote a CSV"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$W/nvidia-smi.txt"
