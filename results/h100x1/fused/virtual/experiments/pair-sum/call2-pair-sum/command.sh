#!/usr/bin/env bash
# One H100: A = HEAD (fp32 sum for every group size), N = HEAD + the two-GPU bf16 pair sum (overlayN),
# T = N built with -DPKBENCH_COMM_TRACE=8 (per-phase stamps), S = N with 6 pipelines x 1 summer warp;
# N's fused GPU tests (plain: the exhaustive bf16 test and one-GPU checks; virtual 2, 3, 4, 8);
# the communicator alone A/N/S alternated twice, 2 and 4 virtual ranks.
set -u
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER CUDA_DEVICE_MAX_CONNECTIONS=32
R=$PWD; W=/tmp/pr; mkdir -p $W
for v in A N T S; do mkdir -p /tmp/pp$v && tar xzf .reftools/snapT_A.tgz -C /tmp/pp$v && ln -s $R/.deps /tmp/pp$v/.deps; done
for v in N T S; do cp -r .reftools/overlayN/. /tmp/pp$v/; done
sed -i 's/inline constexpr int kReducePipes = 4;/inline constexpr int kReducePipes = 6;/; s/inline constexpr int kReduceSumWarps = 2;/inline constexpr int kReduceSumWarps = 1;/' /tmp/ppS/kernels/fused/fused_params.cuh
grep -H "kReducePipes =\|kReduceSumWarps =" /tmp/pp?/kernels/fused/fused_params.cuh > $W/variants.txt
for v in A N T S; do
  extra=""; tg=pkbench_fused
  [ $v = T ] && extra="-DCMAKE_CUDA_FLAGS=-DPKBENCH_COMM_TRACE=8"
  [ $v = N ] && tg="pkbench_fused pkbench_fused_gpu_tests"
  (cd /tmp/pp$v && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a "-DPKBENCH_STUDIES=gemm;fused" $extra > $W/cmake_$v.log 2>&1 &&
   cmake --build build -j4 --target $tg > $W/build_$v.log 2>&1; echo "build $v rc=$?" >> $W/steps.log) &
done
wait
timeout 120 /tmp/ppN/build/bin/pkbench_fused_gpu_tests > $W/testsN_plain.log 2>&1
echo "tests N plain rc=$? $(grep -E 'PASSED|FAILED|SKIPPED \]' $W/testsN_plain.log | sort | uniq -c | tr '\n' ' ')" >> $W/steps.log
for n in 2 3 4 8; do
  PKBENCH_VIRTUAL_RANKS=$n timeout 90 /tmp/ppN/build/bin/pkbench_fused_gpu_tests '--gtest_filter=*/virtual*:*Virtual*' > $W/testsN_$n.log 2>&1
  echo "tests N virtual $n rc=$? $(grep -E 'PASSED|FAILED' $W/testsN_$n.log | tr '\n' ' ')" >> $W/steps.log
done
for op in gemm_rs gemm_ar; do
  timeout 60 /tmp/ppT/build/bin/pkbench_fused --peer-mode=virtual --ranks=2 --ops=$op --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4 --samples=5 --csv=$W/trace_${op}_4.csv > $W/trace_${op}_4.log 2>&1
  echo "trace $op rc=$? lines=$(grep -c '^CT' $W/trace_${op}_4.log)" >> $W/steps.log
done
for r in 1 2; do for v in A N S; do for k in 2 4; do
  timeout 60 /tmp/pp$v/build/bin/pkbench_fused --peer-mode=virtual --ranks=$k --ops=gemm_rs,gemm_ar --schedules=inter_sm \
    --shapes=4096x4096x64 --comm-sms=4,8,16 --samples=5 --csv=$W/comm_${v}_k${k}_r$r.csv > $W/comm_${v}_k${k}_r$r.log 2>&1
  echo "comm $v ranks $k round $r rc=$?" >> $W/steps.log
done; done; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> $W/steps.log
tar czf $OUT/pr.tgz -C $W .
cat $W/steps.log
for f in $W/comm_*.csv; do python3 -c "
import csv
for r in csv.DictReader(open('$f')):
    t=float(r['time_us_median'] or 0); b=float(r['comm_bytes'] or 0); s=int(r['comm_sms'] or 1)
    print('$f'.split('/')[-1], r['op'], s, '%.1f us'%t, '%.1f GB/s/SM'%(b/t/1e3/s if t else 0), r['status'], r['error'][:50])"; done
