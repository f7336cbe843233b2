#!/usr/bin/env bash
# One H100: A = HEAD (3c.. in place, 3 stages of 2 slots), R6 = in place with stages of the peer's piece alone
# (6 stages), R6D = R6 with each stage freed one piece later (the storer never waits on its own add's read);
# TR6/TR6D: the same built with -DPKBENCH_COMM_TRACE=8 (RS at 4, 8, 16 comm SMs). R6's fused GPU tests
# (plain, virtual 2, 3, 4, 8); the communicator alone A/R6/R6D alternated twice, 2 virtual ranks.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/r6; mkdir -p $W
for v in A R6 R6D TR6 TR6D; do mkdir -p /tmp/r$v && tar xzf .reftools/snapR.tgz -C /tmp/r$v && ln -s $R/.deps /tmp/r$v/.deps; done
cp -r .reftools/ov_R6/. /tmp/rR6/; cp -r .reftools/ov_R6/. /tmp/rTR6/; cp -r .reftools/ov_R6D/. /tmp/rR6D/; cp -r .reftools/ov_R6D/. /tmp/rTR6D/
for v in A R6 R6D TR6 TR6D; do
  extra=""; tg=pkbench_fused
  case $v in TR6|TR6D) extra="-DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8";; R6) tg="pkbench_fused pkbench_fused_gpu_tests";; esac
  (cd /tmp/r$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" $extra > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j3 --target $tg > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
timeout 120 /tmp/rR6/build/bin/pkbench_fused_gpu_tests > $W/testsR6_plain.log 2>&1
echo "tests R6 plain rc=$? $(grep -E '^\[ +(PASSED|FAILED) +\]' $W/testsR6_plain.log | tr '\n' ' ')" >> $W/steps.log
for n in 2 3 4 8; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 90 /tmp/rR6/build/bin/pkbench_fused_gpu_tests '--gtest_filter=*/virtual*:*Virtual*' > $W/testsR6_$n.log 2>&1
  echo "tests R6 virtual $n rc=$? $(grep -E 'PASSED|FAILED' $W/testsR6_$n.log | tr '\n' ' ')" >> $W/steps.log
done
grep -h -A12 "Failure" $W/testsR6_*.log | head -40 >> $W/steps.log
for v in TR6 TR6D; do for s in 4 8 16; do
  timeout 60 /tmp/r$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=$s --samples=5 --csv=$W/trace_${v}_$s.csv > $W/trace_${v}_$s.log 2>&1
  echo "trace $v $s rc=$? lines=$(grep -c '^CT' $W/trace_${v}_$s.log)" >> $W/steps.log
done; done
for r in 1 2; do for v in A R6 R6D; do
  timeout 60 /tmp/r$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4,8,16,32 --samples=5 --csv=$W/comm_${v}_r$r.csv > $W/comm_${v}_r$r.log 2>&1
  echo "comm $v round $r rc=$?" >> $W/steps.log
done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
tar czf $OUT/r6.tgz -C $W .
cat $W/steps.log
python3 scripts/comm-trace.py $W/trace_*.log
for f in $W/comm_*.csv; do python3 -c "
import csv
for r in csv.DictReader(open('$f')):
    t=float(r['time_us_median'] or 0); b=float(r['comm_bytes'] or 0); s=int(r['comm_sms'] or 1)
    print('$f'.split('/')[-1], r['op'], s, '%.1f us'%t, '%.1f GB/s/SM'%(b/t/1e3/s if t else 0), r['status'], r['error'][:60])"; done
