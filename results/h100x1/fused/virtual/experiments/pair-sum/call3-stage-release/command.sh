#!/usr/bin/env bash
# One H100: N = HEAD (4cde523: bf16 pair sum), J = N + each piece's stage freed once its own stores read it,
# B = N + 8 vectors per summer thread in the pair sum, JB = both; TJ = JB with -DPKBENCH_COMM_TRACE=8.
# JB's fused GPU tests (virtual 2, 3, 4, 8); the communicator alone N/J/B/JB alternated twice, 2 virtual ranks.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/jb; mkdir -p $W
for v in N J B JB TJ; do mkdir -p /tmp/q$v && tar xzf .reftools/snapJ.tgz -C /tmp/q$v && ln -s $R/.deps /tmp/q$v/.deps; done
for v in J B JB; do cp -r .reftools/ov_$v/. /tmp/q$v/; done
cp -r .reftools/ov_JB/. /tmp/qTJ/
for v in N J B JB TJ; do
  extra=""; tg=pkbench_fused
  [ $v = TJ ] && extra="-DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8"
  [ $v = JB ] && tg="pkbench_fused pkbench_fused_gpu_tests"
  (cd /tmp/q$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" $extra > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j3 --target $tg > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
for n in 2 3 4 8; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 90 /tmp/qJB/build/bin/pkbench_fused_gpu_tests '--gtest_filter=*/virtual*:*Virtual*' > $W/testsJB_$n.log 2>&1
  echo "tests JB virtual $n rc=$? $(grep -E 'PASSED|FAILED' $W/testsJB_$n.log | tr '\n' ' ')" >> $W/steps.log
done
for op in gemm_rs gemm_ar; do
  timeout 60 /tmp/qTJ/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=$op --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4 --samples=5 --csv=$W/trace_${op}_4.csv > $W/trace_${op}_4.log 2>&1
  echo "trace $op rc=$? lines=$(grep -c '^CT' $W/trace_${op}_4.log)" >> $W/steps.log
done
for r in 1 2; do for v in N J B JB; do
  timeout 60 /tmp/q$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4,8,16 --samples=5 --csv=$W/comm_${v}_r$r.csv > $W/comm_${v}_r$r.log 2>&1
  echo "comm $v round $r rc=$?" >> $W/steps.log
done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
tar czf $OUT/jb.tgz -C $W .
cat $W/steps.log
for f in $W/comm_*.csv; do python3 -c "
import csv
for r in csv.DictReader(open('$f')):
    t=float(r['time_us_median'] or 0); b=float(r['comm_bytes'] or 0); s=int(r['comm_sms'] or 1)
    print('$f'.split('/')[-1], r['op'], s, '%.1f us'%t, '%.1f GB/s/SM'%(b/t/1e3/s if t else 0), r['status'], r['error'][:50])"; done
