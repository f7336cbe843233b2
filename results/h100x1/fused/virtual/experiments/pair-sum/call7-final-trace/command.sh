#!/usr/bin/env bash
# One H100, commit 18d80d7471ed: (1) scripts/device.sh --check=fused-comm-virtual (fused GPU tests with 2, 3, 4, 8 virtual
# ranks; the reduction communicator alone with 2 and 4 ranks) from a clean snapshot; (2) the same tree built with
# -DPKBENCH_COMM_TRACE=8: stamps of GEMM+RS (in place) and GEMM+AR at 4, 8, 16 comm SMs, 2 virtual ranks.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/f1; mkdir -p $W/check /tmp/f1snap /tmp/f1tr
tar xzf .reftools/snapF1.tgz -C /tmp/f1snap && ln -s $R/.deps /tmp/f1snap/.deps
tar xzf .reftools/snapF1.tgz -C /tmp/f1tr && ln -s $R/.deps /tmp/f1tr/.deps
(cd /tmp/f1tr && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" -DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8 > $W/cmake_tr.log 2>&1 &&
 cmake --build build -j6 --target pkbench_fused > $W/build_tr.log 2>&1; echo "build trace rc=$?" >> $W/steps.log) &
(cd /tmp/f1snap && OUT=$W/check PKBENCH_GIT_COMMIT=18d80d7471ed bash scripts/device.sh --check=fused-comm-virtual > $W/check.log 2>&1; echo "check rc=$?" >> $W/steps.log)
wait
for op in gemm_rs gemm_ar; do for s in 4 8 16; do
  timeout 60 /tmp/f1tr/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=$op --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=$s --samples=5 --csv=$W/trace_${op}_$s.csv > $W/trace_${op}_$s.log 2>&1
  echo "trace $op $s rc=$? lines=$(grep -c '^CT' $W/trace_${op}_$s.log)" >> $W/steps.log
done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
ls -R $W/check | head -30
tar czf $OUT/f1.tgz -C $W .
cat $W/steps.log; tail -30 $W/check.log
grep -h CTH $W/trace_*.log
python3 scripts/comm-trace.py $W/trace_*.log
