#!/usr/bin/env bash
# The fused communicators alone: inter-SM kernels at shapes whose GEMM is negligible (GEMM+RS/AR
# with K = 64, AG+GEMM with N = 256), beside the collectives, so their rate per communication SM
# shows without compute contention. One call on nvidia-h200-x2: bash microbench/fused/device-comm-only.sh
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
B=/tmp/pkd
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_DEPS_DIR=$PWD/.deps "-DPKBENCH_STUDIES=gemm;fused" > /tmp/cfg.log 2>&1 || tail /tmp/cfg.log
cmake --build $B --target pkbench_fused -j32 > /tmp/build.log 2>&1 || grep -m20 error /tmp/build.log
F=$B/microbench/fused/pkbench_fused
T() { awk -F, 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next}{printf "%-8s %-12s %s x%s x%s c=%-3s %9s us comm_bytes=%s %s %s\n",$c["op"],$c["impl"],$c["m"],$c["n"],$c["k"],$c["comm_sms"],$c["time_us_median"],$c["comm_bytes"],$c["status"],substr($c["error"],1,80)}' $1; }
$F --ops=gemm_rs,gemm_ar --schedules=coll_pk,coll_nccl,gemm_pk,inter_sm --shapes=4096x4096x64 --comm-sms=4,8,16,32 --samples=5 --csv=$OUT/d1.csv > $OUT/d1.log 2>&1; T $OUT/d1.csv
$F --ops=ag_gemm --schedules=coll_pk,gemm_pk,ce_overlap,inter_sm --shapes=4096x256x4096 --comm-sms=4,8,16,32 --samples=5 --csv=$OUT/d2.csv > $OUT/d2.log 2>&1; T $OUT/d2.csv
nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv
