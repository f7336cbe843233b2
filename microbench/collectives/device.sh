#!/usr/bin/env bash
# One call on a lent GPU machine for the collective study: build only this study's targets
# in /tmp, run its GPU tests, run the benchmark alone and under mpirun (one process per
# GPU), pack logs and CSVs into $OUT/coll.tgz, print a short table last.
#   bash microbench/collectives/device.sh [check|results] [extra pkbench_collectives flags]
#     check:   tests + a short all-reduce sweep (first call)
#     results: the measured grid for results/h200x2/collectives/
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
what=${1:-check}
shift || true
O=${OUT:-/tmp/coll_out}/coll
mkdir -p "$O"
B=/tmp/pkb-coll
t0=$(date +%s)
el() { echo "$(( $(date +%s) - t0 ))s"; }
{
  nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s | head -20
  command -v mpirun && mpirun --version | head -2
  ls -l /usr/include/nccl.h /usr/lib/x86_64-linux-gnu/libnccl.so* 2>&1
} > "$O/env.txt" 2>&1
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release > "$O/build.log" 2>&1
cmake --build $B --target pkbench_collectives pkbench_collectives_gpu_tests pkbench_collectives_cpu_tests pkbench_collectives_summary -j32 \
  >> "$O/build.log" 2>&1 || { tail -40 "$O/build.log"; tar czf "${OUT:-/tmp}/coll.tgz" -C "$(dirname "$O")" coll; exit 1; }
grep -E "pkbench: (MPI|NCCL|CLI11|NVSHMEM)" "$O/build.log"
echo "build done $(el)"
BIN=$B/microbench/collectives/pkbench_collectives
MPI=(mpirun -np 2 --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE=0 -x NVSHMEM_DISABLE_NVLS=1
     -x TORCH_SYMM_MEM_DISABLE_MULTICAST=1 -x CUDA_MODULE_LOADING=EAGER)
ODD=(--counts=1,1001,65537 --tensor-counts=3 --tensor-cols=1001 --a2a-shape=2,4,33 --samples=2 --warmup-ms=1
     --gap-ms=0 --ops-per-sample=3 --nccltests-iters=2)
$B/tests/pkbench_collectives_cpu_tests > "$O/cpu_tests.log" 2>&1; echo "cpu tests rc=$? $(el)"
if [ "$what" = check ]; then
  timeout 120 $B/tests/pkbench_collectives_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "gpu tests rc=$? $(el)"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|error" "$O/gpu_tests.log" | head -20
  timeout 60 $BIN "${ODD[@]}" --csv="$O/odd_single.csv" > "$O/odd_single.log" 2>&1; echo "odd single rc=$? $(el)"
  timeout 60 "${MPI[@]}" $BIN "${ODD[@]}" --csv="$O/odd_mpi.csv" > "$O/odd_mpi.log" 2>&1; echo "odd mpirun rc=$? $(el)"
  grep -h "error" "$O"/odd_*.log | head -8
  SWEEP=(--collectives=all_reduce --dtypes=bf16 --sizes=4K,64K,1M,16M,256M,1G --samples=5 "$@")
  timeout 45 $BIN "${SWEEP[@]}" --csv="$O/ar_single.csv" > "$O/ar_single.log" 2>&1; echo "sweep single rc=$? $(el)"
  timeout 60 "${MPI[@]}" $BIN "${SWEEP[@]}" --csv="$O/ar_mpi.csv" > "$O/ar_mpi.log" 2>&1; echo "sweep mpirun rc=$? $(el)"
  CSVS="$O/ar_mpi.csv $O/ar_single.csv"
else
  timeout 150 $B/tests/pkbench_collectives_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "gpu tests rc=$? $(el)"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" "$O/gpu_tests.log" | head -8
  timeout 40 "${MPI[@]}" $BIN "${ODD[@]}" --csv="$O/odd_mpi.csv" > "$O/odd_mpi.log" 2>&1; echo "odd mpirun rc=$? $(el)"
  awk -F, 'NR>1 && $0 ~ /,error,/' "$O/odd_mpi.csv" | cut -c1-200 | head -5
  # Headline: one process per GPU, bf16, every collective, both launch modes.
  timeout "${COLL_TIMEOUT:-150}" "${MPI[@]}" $BIN --dtypes=bf16 --sizes=4K,16K,64K,256K,1M,4M,16M,64M,256M,1G \
    --tensor-sizes=64M --samples=7 --csv="$O/collectives_mpi.csv" "$@" > "$O/collectives_mpi.log" 2>&1
  echo "results mpirun rc=$? $(el)"
  # fp32 on a coarser size grid; all-reduce with one process driving both GPUs.
  timeout "${COLL_FP32_TIMEOUT:-120}" "${MPI[@]}" $BIN --dtypes=fp32 --sizes=4K,64K,1M,16M,256M,1G --tensor-sizes=64M \
    --samples=5 --csv="$O/collectives_fp32_mpi.csv" "$@" > "$O/collectives_fp32_mpi.log" 2>&1
  echo "fp32 mpirun rc=$? $(el)"
  timeout 60 $BIN --collectives=all_reduce --dtypes=bf16 --sizes=4K,64K,1M,16M,256M,1G --samples=5 \
    --csv="$O/all_reduce_single_process.csv" > "$O/all_reduce_single_process.log" 2>&1
  echo "single process rc=$? $(el)"
  # NCCL through its network transport: simulated inter-node (our kernels need peer memory).
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 timeout 25 "${MPI[@]}" -x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 $BIN \
    --impls=nccl --collectives=all_reduce --dtypes=bf16 --sizes=4K,1M,64M,1G --modes=eager --samples=3 \
    --csv="$O/nccl_net_mpi.csv" > "$O/nccl_net_mpi.log" 2>&1
  echo "simulated inter-node rc=$? $(el)"
  CSVS="$O/collectives_mpi.csv $O/collectives_fp32_mpi.csv $O/all_reduce_single_process.csv $O/nccl_net_mpi.csv"
fi
tar czf "${OUT:-/tmp}/coll.tgz" -C "$(dirname "$O")" coll
# Short table: per point the best NCCL and the best of ours, by the sweeps library's one rule
# (sweeps/verdict.h), both timing methods, and the targets.
for f in $CSVS; do
  [ -f "$f" ] || continue
  echo "== $(basename "$f")"
  $B/sweeps/pkbench_collectives_summary "$f" | sed -n '/^## Targets/,/^## Ablation/p'
done
echo "total $(el)"
