#!/usr/bin/env bash
# One H100: (1) per-phase clock64 stamps of the reduction communicator (T = HEAD + trace header, built with
# -DPKBENCH_COMM_TRACE=8), RS and AR, 2 virtual ranks, 4 and 16 comm SMs; (2) A = HEAD (4 x (1+2)), B = 2 x (1+5),
# C = 3 x (1+3) pipelines x summer warps, the communicator alone alternated twice; B and C fused GPU tests, 2 and 3 virtual ranks.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/tr; mkdir -p $W
for v in A B C T; do mkdir -p /tmp/pp$v && tar xzf .reftools/snapT_A.tgz -C /tmp/pp$v && ln -s $R/.deps /tmp/pp$v/.deps; done
cp .reftools/trace_inter.cuh /tmp/ppT/kernels/fused/gemm_reduce_inter.cuh
sed -i 's/inline constexpr int kReducePipes = 4;/inline constexpr int kReducePipes = 2;/; s/inline constexpr int kReduceSumWarps = 2;/inline constexpr int kReduceSumWarps = 5;/' /tmp/ppB/kernels/fused/fused_params.cuh
sed -i 's/inline constexpr int kReducePipes = 4;/inline constexpr int kReducePipes = 3;/; s/inline constexpr int kReduceSumWarps = 2;/inline constexpr int kReduceSumWarps = 3;/' /tmp/ppC/kernels/fused/fused_params.cuh
grep -H "kReducePipes =\|kReduceSumWarps =" /tmp/pp?/kernels/fused/fused_params.cuh > $W/variants.txt
for v in A B C T; do
  extra=""; tg="pkbench_fused pkbench_fused_gpu_tests"
  [ $v = T ] && { extra="-DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8"; tg=pkbench_fused; }
  [ $v = A ] && tg=pkbench_fused
  (cd /tmp/pp$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" $extra > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j4 --target $tg > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
cat $W/steps.log
for op in gemm_rs gemm_ar; do for s in 4 16; do
  timeout 60 /tmp/ppT/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=$op --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=$s --samples=5 --csv=$W/trace_${op}_$s.csv > $W/trace_${op}_$s.log 2>&1
  echo "trace $op $s rc=$? lines=$(grep -c '^CT' $W/trace_${op}_$s.log)" >> $W/steps.log
done; done
for r in 1 2; do for v in A B C; do
  timeout 60 /tmp/pp$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4,8,16 --samples=5 --csv=$W/comm_${v}_r$r.csv > $W/comm_${v}_r$r.log 2>&1
  echo "comm $v round $r rc=$?" >> $W/steps.log
done; done
for v in B C; do for n in 2 3; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 90 /tmp/pp$v/build/bin/pkbench_fused_gpu_tests '--gtest_filter=*/virtual*:*Virtual*' > $W/tests${v}_$n.log 2>&1
  echo "tests $v virtual $n rc=$? $(grep -E 'PASSED|FAILED' $W/tests${v}_$n.log | tr '\n' ' ')" >> $W/steps.log
done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
cp $W/trace_*.log $W/trace_*.csv $W/comm_*.csv $W/steps.log $W/variants.txt $W/tests*.log /tmp/trout/ 2>/dev/null
tar czf $OUT/tr.tgz -C $W .
cat $W/steps.log
for f in $W/comm_*.csv; do python3 -c "
import csv
for r in csv.DictReader(open('$f')):
    t=float(r['time_us_median'] or 0); b=float(r['comm_bytes'] or 0); s=int(r['comm_sms'] or 1)
    print('$f'.split('/')[-1], r['op'], s, '%.1f us'%t, '%.1f GB/s/SM'%(b/t/1e3/s if t else 0), r['status'], r['error'][:50])"; done
