#!/usr/bin/env bash
# The collective and fused targets of a whole NVSwitch node in one invocation, every baseline
# beside the tool that checks it: pkbench_collectives (ours, every variant, and every NCCL
# configuration), nccl-tests' own binaries on the same sizes (merged into the NCCL rows by
# pkbench_coll_ref), pkbench_fused (the fused kernels, cuBLAS then NCCL, the overlapped
# cuBLAS+NCCL, the copy-engine overlap, and the GEMM and collective alone: the overlap bound),
# and PyTorch's async TP and symmetric-memory all-reduces (microbench/fused/ref_torch.sh, merged
# into both CSVs by pkbench_torch_ref); then the summaries.
#   microbench/collectives/node-targets.sh OUT_DIR
# Environment (defaults in brackets):
#   NP          processes, one per GPU [every GPU nvidia-smi lists]
#   BUILD       pkbench's build folder [build]
#   PKBENCH_NCCL_TESTS  folder of nccl-tests' *_perf (built with MPI=1) [on PATH; none: skipped, said so]
#   COLL_SIZES  [4K,256K,1M,4M,16M,64M,1G]       FUSED_SIZES [4096,8192,16384]
#   SAMPLES     [5]                                QUICK=1: collectives at 1M,16M,1G and fused at 8192 only
#   COLL_FLAGS  more pkbench_collectives flags [none] (e.g. --nccltests-shift: NCCL's rows move their
#               buffers as nccl-tests does, for the cross-check; README.md of the collectives)
# Multicast stays off (NCCL_NVLS_ENABLE=0, NVSHMEM_DISABLE_NVLS=1, TORCH_SYMM_MEM_DISABLE_MULTICAST=1).
# Exit: the first failing step's status (every step still runs); 2 for bad arguments.
set -uo pipefail
cd "$(dirname "$0")/../.."
case ${1:-} in -h|--help) sed -n '2,19p' "$0"; exit 0 ;; ""|-*) echo "usage: microbench/collectives/node-targets.sh OUT_DIR" >&2; exit 2 ;; esac
O=$1
BUILD=${BUILD:-build}
NP=${NP:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[[ $NP =~ ^[0-9]+$ ]] && [ "$NP" -ge 2 ] || { echo "node-targets.sh: needs 2 or more GPUs (NP=$NP)" >&2; exit 2; }
SAMPLES=${SAMPLES:-5}
COLL_SIZES=${COLL_SIZES:-4K,256K,1M,4M,16M,64M,1G}
FUSED_SIZES=${FUSED_SIZES:-4096,8192,16384}
if [ "${QUICK:-0}" = 1 ]; then COLL_SIZES=1M,16M,1G FUSED_SIZES=8192; fi
for b in pkbench_collectives pkbench_fused pkbench_coll_ref pkbench_torch_ref pkbench_collectives_summary pkbench_fused_summary; do
  [ -x "$BUILD/bin/$b" ] || { echo "node-targets.sh: $BUILD/bin/$b is not built" >&2; exit 2; }
done
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER NP BUILD
MPI=(mpirun -np "$NP" --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS
     -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x CUDA_MODULE_LOADING)
mkdir -p "$O"
status=0
step() {  # step NAME CMD...: runs it, logs to OUT/NAME.log, keeps the first failure
  local name=$1 t0=$SECONDS rc
  shift
  echo "== $name: $*"
  "$@" > "$O/$name.log" 2>&1
  rc=$?
  echo "   $name: exit $rc, $((SECONDS - t0)) s"
  [ $rc = 0 ] || { tail -5 "$O/$name.log" | sed 's/^/   /'; [ $status = 0 ] && status=$rc; }
  return 0
}

# 1. Collectives: ours (every variant and _pdl twin) and every NCCL configuration, bf16, both
#    launch modes; nccl-tests' method with -G 10 for the graph rows (as the tool below).
OURS=one_shot,one_shot_pdl,two_shot_push,two_shot_push_rounds,two_shot_tma,ll,ll_pdl,push,push_landing,push_rounds
OURS=$OURS,push_tma,pull,pull_pdl
NCCL=nccl,nccl_sym,nccl_ll_ring,nccl_ll_tree,nccl_ll128_ring,nccl_ll128_tree,nccl_simple_ring,nccl_simple_tree
step collectives "${MPI[@]}" "$BUILD/bin/pkbench_collectives" --collectives=all_reduce,all_gather,reduce_scatter,broadcast \
  --impls="$OURS,$NCCL" --dtypes=bf16 --sizes="$COLL_SIZES" --modes=eager,graph --nccl-configs=all \
  --samples="$SAMPLES" --warmup-ms=10 --gap-ms=2 --nccltests-graph-launches=10 --csv="$O/collectives.csv" ${COLL_FLAGS:-}

# 2. nccl-tests (NCCL's default configuration), eager and -G 10, the same sizes (factor 4 from
#    4 KiB covers the default list), merged into the default NCCL rows.
NT=${PKBENCH_NCCL_TESTS:-}
if [ -z "$NT" ] && command -v all_reduce_perf >/dev/null; then NT=$(dirname "$(command -v all_reduce_perf)"); fi
if [ -n "$NT" ]; then
  merge=()
  for prog in all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf; do
    for g in 0 10; do
      args=(-b 4K -e 1G -f 4 -d bfloat16 -n 20 -w 5 -g 1)
      [ $g = 0 ] || args+=(-G $g)
      step "nccltests_${prog}_G$g" "${MPI[@]}" "$NT/$prog" "${args[@]}"
      merge+=(--nccl-tests="default:$O/nccltests_${prog}_G$g.log")
    done
  done
  step coll_ref "$BUILD/bin/pkbench_coll_ref" --csv="$O/collectives.csv" "${merge[@]}"
else
  echo "== nccl-tests: skipped (PKBENCH_NCCL_TESTS unset and all_reduce_perf not on PATH)"
fi

# 3. Fused: every operator at FUSED_SIZES; the components (GEMM alone, NCCL alone: the overlap
#    bound), the baselines, both fused kernels.
step fused "${MPI[@]}" "$BUILD/bin/pkbench_fused" --ops=gemm_rs,ag_gemm,gemm_ar --sizes="$FUSED_SIZES" \
  --schedules=gemm_cublas,coll_nccl,cublas_nccl,cublas_nccl_overlap,ce_overlap,intra_sm,inter_sm \
  --comm-sms=16,32 --chunks=2,4 --samples="$SAMPLES" --csv="$O/fused.csv"

# 4. PyTorch on the same shapes and sizes, merged into both CSVs (skipped, said so, without it).
step torch microbench/fused/ref_torch.sh "$O/torch" --fused="$O/fused.csv" \
  --collectives="$O/collectives.csv" -- --fused-sizes="$FUSED_SIZES" --ar-sizes="$COLL_SIZES" --samples="$SAMPLES"

# 5. The verdicts.
step collectives_summary "$BUILD/bin/pkbench_collectives_summary" --out "$O/collectives_summary.md" "$O/collectives.csv"
step fused_summary "$BUILD/bin/pkbench_fused_summary" --out "$O/fused_summary.md" "$O/fused.csv"
echo "node-targets.sh: exit $status; $O: collectives.csv, fused.csv, torch/, *_summary.md, *.log"
exit $status
