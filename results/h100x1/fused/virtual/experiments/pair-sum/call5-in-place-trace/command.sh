#!/usr/bin/env bash
# One H100: what bounds the reduction communicator at 8 and 16 comm SMs (2 virtual ranks, 4096x4096x64).
# T = HEAD built with -DPKBENCH_COMM_TRACE=8: stamps of RS (in place) and AR at 4, 8, 16 comm SMs;
# H = HEAD: the GEMM alone (gemm_pk, all of a rank's SMs) and inter_sm at 4..32 comm SMs, for the time the GEMM side takes.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/t16; mkdir -p $W
for v in T H; do mkdir -p /tmp/t$v && tar xzf .reftools/snapQ.tgz -C /tmp/t$v && ln -s $R/.deps /tmp/t$v/.deps; done
for v in T H; do
  extra=""; [ $v = T ] && extra="-DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8"
  (cd /tmp/t$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" $extra > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j8 --target pkbench_fused > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
for op in gemm_rs gemm_ar; do for s in 4 8 16; do
  timeout 60 /tmp/tT/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=$op --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=$s --samples=5 --csv=$W/trace_${op}_$s.csv > $W/trace_${op}_$s.log 2>&1
  echo "trace $op $s rc=$? lines=$(grep -c '^CT' $W/trace_${op}_$s.log)" >> $W/steps.log
done; done
timeout 90 /tmp/tH/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=gemm_pk,inter_sm \
  --shapes=4096x4096x64 --comm-sms=4,8,16,32 --samples=5 --csv=$W/gemm_and_comm.csv > $W/gemm_and_comm.log 2>&1
echo "gemm_and_comm rc=$?" >> $W/steps.log
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
tar czf $OUT/t16.tgz -C $W .
cat $W/steps.log
python3 scripts/comm-trace.py $W/trace_*.log
python3 -c "
import csv
for r in csv.DictReader(open('$W/gemm_and_comm.csv')):
    print(r['op'], r['impl'] if 'impl' in r else r.get('schedule',''), r['comm_sms'], r['time_us_median'], r['status'])"
