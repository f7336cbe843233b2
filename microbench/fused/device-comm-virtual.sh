#!/usr/bin/env bash
# The reduction communicator alone on ONE GPU with virtual ranks (its peers are the same HBM,
# not NVLink): build the fused study, verify every fused kernel with 2, 3, 4 and 8 virtual
# ranks (the fused GPU tests' virtual cases: odd tile counts, more tiles than blocks), then
# time the inter-SM GEMM+RS / GEMM+AR at K = 64 (the GEMM is negligible: the
# communicator_only rows) over the communication SMs, with 2 and 4 ranks (on one H100 the
# last comm-SM point of each, 32 of 66 and 16 of 33 SMs, timed the same for every
# communicator variant: the GEMM on the SMs left and the tail bound it there). One call on
# nvidia-h100-x1 (or nvidia-h200), carrying .deps:
#   PKBENCH_GIT_COMMIT=<sha> bash microbench/fused/device-comm-virtual.sh
# Everything lands in $OUT/comm-virtual.tgz (logs, CSVs, the commands); a table is printed last.
# A failed test stops the script before anything is timed.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
export CUDA_DEVICE_MAX_CONNECTIONS=32  # virtual ranks: the tests' setting (peer_group.h)
B=${COMM_BUILD_DIR:-/tmp/pk-comm-build}
W=${COMM_WORK_DIR:-/tmp/comm-virtual}
out=${OUT:-/tmp/pk-comm-out}
rm -rf "$W"
mkdir -p "$W" "$out"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$W/steps.log"; }
pack() { tar -C "$(dirname "$W")" -czf "$out/comm-virtual.tgz" "$(basename "$W")"; }
trap pack EXIT

cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a -DPKBENCH_DEPS_DIR="$PWD/.deps" \
  "-DPKBENCH_STUDIES=gemm;fused" >"$W/configure.log" 2>&1 || { tail -20 "$W/configure.log"; exit 1; }
cmake --build "$B" -j16 --target pkbench_fused pkbench_fused_gpu_tests >"$W/build.log" 2>&1 ||
  { grep -m20 -A5 error "$W/build.log"; exit 1; }
stamp built
tests=$(find "$B" -name pkbench_fused_gpu_tests -type f -perm -u+x | head -1)
F=$B/bin/pkbench_fused

fail=0
for n in 2 3 4 8; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 75 "$tests" '--gtest_filter=*/virtual*:*Virtual*' >"$W/test_virtual_$n.log" 2>&1
  rc=$?
  stamp "fused GPU tests, $n virtual ranks: rc=$rc $(grep -E 'points verified|PASSED|FAILED' "$W/test_virtual_$n.log" | tr '\n' ' ')"
  [ $rc -eq 0 ] || fail=1
done
[ $fail -eq 0 ] || { grep -h -B2 -A8 "Failure\|wrong result" "$W"/test_virtual_*.log | head -60; exit 1; }

# TABLE CSV: op, ranks, comm SMs, median us, comm bytes, GB/s per comm SM, status.
table() {
  awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}
    {t=$c["time_us_median"]; s=$c["comm_sms"]; b=$c["comm_bytes"];
     printf "%-8s w=%s comm_sms=%-3s %9s us  %7.1f GB/s per SM  %s %s\n", $c["op"], $c["gpus"], s, t,
       (t>0&&s>0)?b/(t*1e3)/s:0, $c["status"], substr($c["error"],1,60)}' "$1"
}
run() {  # NAME ARGS...: one timed run, its command and log kept
  local name=$1; shift
  echo "$F --peer-mode=virtual $* --csv=$name.csv" >"$W/$name.command"
  timeout 120 "$F" --peer-mode=virtual "$@" --csv="$W/$name.csv" >"$W/$name.log" 2>&1
  stamp "$name: rc=$?"
  [ -f "$W/$name.csv" ] && table "$W/$name.csv" | tee -a "$W/table.txt"
}
run communicator_only_rs_ar_2_ranks --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm --shapes=4096x4096x64 \
  --comm-sms=4,8,16,32 --samples=5
run communicator_only_rs_ar_4_ranks --ranks=4 --ops=gemm_rs,gemm_ar --schedules=inter_sm --shapes=4096x4096x64 \
  --comm-sms=4,8,16 --samples=5
cuobjdump -sass "$(find "$B" -name fused_kernel_reduce_inter.cu.o | head -1)" >"$W/reduce_inter.sass" 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv | tee "$W/nvidia-smi.txt"
