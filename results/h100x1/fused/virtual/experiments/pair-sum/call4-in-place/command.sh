#!/usr/bin/env bash
# One H100: A = HEAD (efe8816), P = HEAD + GEMM+RS in place on two GPUs (ov_P: own shard stored into the
# output by the compute blocks, the peer's piece TMA-reduce-added by the communicator). P's fused GPU tests
# (plain, virtual 2, 3, 4, 8); the communicator alone A/P alternated twice, 2 virtual ranks, 4/8/16/32 comm SMs.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/ip; mkdir -p $W
for v in A P; do mkdir -p /tmp/i$v && tar xzf .reftools/snapP.tgz -C /tmp/i$v && ln -s $R/.deps /tmp/i$v/.deps; done
cp -r .reftools/ov_P/. /tmp/iP/
for v in A P; do
  tg=pkbench_fused; [ $v = P ] && tg="pkbench_fused pkbench_fused_gpu_tests"
  (cd /tmp/i$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j8 --target $tg > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
timeout 120 /tmp/iP/build/bin/pkbench_fused_gpu_tests > $W/testsP_plain.log 2>&1
echo "tests P plain rc=$? $(grep -E '^\[ +(PASSED|FAILED) +\]' $W/testsP_plain.log | tr '\n' ' ')" >> $W/steps.log
for n in 2 3 4 8; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 90 /tmp/iP/build/bin/pkbench_fused_gpu_tests '--gtest_filter=*/virtual*:*Virtual*' > $W/testsP_$n.log 2>&1
  echo "tests P virtual $n rc=$? $(grep -E 'PASSED|FAILED' $W/testsP_$n.log | tr '\n' ' ')" >> $W/steps.log
done
grep -h -A12 "Failure" $W/testsP_*.log | head -40 >> $W/steps.log
for r in 1 2; do for v in A P; do
  timeout 60 /tmp/i$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4,8,16,32 --samples=5 --csv=$W/comm_${v}_r$r.csv > $W/comm_${v}_r$r.log 2>&1
  echo "comm $v round $r rc=$?" >> $W/steps.log
done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
tar czf $OUT/ip.tgz -C $W .
cat $W/steps.log
for f in $W/comm_*.csv; do python3 -c "
import csv
for r in csv.DictReader(open('$f')):
    t=float(r['time_us_median'] or 0); b=float(r['comm_bytes'] or 0); s=int(r['comm_sms'] or 1)
    print('$f'.split('/')[-1], r['op'], s, '%.1f us'%t, '%.1f GB/s/SM'%(b/t/1e3/s if t else 0), r['status'], r['error'][:60])"; done
