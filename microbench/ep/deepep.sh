#!/usr/bin/env bash
# DeepEP (github.com/deepseek-ai/DeepEP) as the expert-parallel study's reference tool, like
# scripts/build-ref-tools.sh for nccl-tests: built from a source folder you fetched yourself
# (nothing of it enters the repository) against this machine's PyTorch and the NVSHMEM of the
# nvidia-nvshmem-cu13 wheel (headers and libraries), into .reftools/deepep/; then, in one
# invocation, the study and DeepEP's intranode tests on the same shape and GPUs, and
# pkbench_ep_ref puts DeepEP's figures beside the rows (ref_tool, ref_time_us, ...).
#   microbench/ep/deepep.sh build                       # says precisely what fails, if anything
#   microbench/ep/deepep.sh run OUT_DIR [pkbench_ep flags]
# DeepEP's versions: v1.x (tests/test_intranode.py, NVSHMEM for the low-latency mode) builds
# with the NCCL these machines have; its later V2 (csrc/python_api.cpp, tests/legacy/) needs
# NCCL >= 2.30.4 and the third-party/fmt submodule: this script says so and names the v1 tag.
# Environment (defaults in brackets):
#   DEEPEP_SRC  the source folder [.reftools/src/DeepEP]   PYTHON [python3]
#   NP          GPUs, one process each [every GPU nvidia-smi lists]
#   TOKENS      T of the normal-mode test [4096]   LL_TOKENS  T of the low-latency test [128]
#   HIDDEN [7168]  EXPERTS [256]  TOPK [8]         BUILD  pkbench's build folder [build]
# Exit: 2 bad usage, 1 a step failed (its log named), 0 done.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUTDIR=$ROOT/.reftools/deepep
SRC=${DEEPEP_SRC:-$ROOT/.reftools/src/DeepEP}
PY=${PYTHON:-python3}
BUILD=${BUILD:-build}
TOKENS=${TOKENS:-4096}
LL_TOKENS=${LL_TOKENS:-128}
HIDDEN=${HIDDEN:-7168}
EXPERTS=${EXPERTS:-256}
TOPK=${TOPK:-8}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "deepep.sh: $*" >&2; exit 1; }
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  build|run) cmd=$1; shift ;;
  *) echo "deepep.sh: error: 'build' or 'run OUT_DIR' (got '${1:-}')" >&2; usage >&2; exit 2 ;;
esac
for v in TOKENS LL_TOKENS HIDDEN EXPERTS TOPK; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "deepep.sh: error: $v=${!v}: a positive integer" >&2; exit 2; }
done

# Which DeepEP the folder holds: v1 (the tests at tests/) or V2 (tests/legacy/).
layout() {
  if [ -f "$SRC/csrc/deep_ep.cpp" ] && [ -f "$SRC/tests/test_intranode.py" ]; then echo v1
  elif [ -f "$SRC/csrc/python_api.cpp" ] && [ -f "$SRC/tests/legacy/test_intranode.py" ]; then echo v2
  else echo none; fi
}
tests_dir() { [ "$(layout)" = v1 ] && echo "$SRC/tests" || echo "$SRC/tests/legacy"; }
version() { git -C "$SRC" describe --tags --always 2>/dev/null || echo "$(layout)"; }

build() {
  [ -f "$SRC/setup.py" ] || fail "DEEPEP_SRC=$SRC: no setup.py (fetch github.com/deepseek-ai/DeepEP there, or point DEEPEP_SRC at it)"
  local lay
  lay=$(layout)
  [ "$lay" != none ] || fail "$SRC: neither DeepEP v1 (csrc/deep_ep.cpp, tests/test_intranode.py) nor V2 (csrc/python_api.cpp, tests/legacy/)"
  "$PY" -c "import torch, torch.utils.cpp_extension" 2>/dev/null || fail "$PY has no PyTorch (DeepEP builds as a PyTorch extension)"
  local nvshmem
  nvshmem=$("$PY" -c "import nvidia.nvshmem as m; print(m.__path__[0])" 2>/dev/null) ||
    fail "$PY has no NVSHMEM wheel (pip install nvidia-nvshmem-cu13; DeepEP's internode and low-latency kernels link it)"
  [ -f "$nvshmem/include/nvshmem.h" ] || fail "the NVSHMEM wheel at $nvshmem has no include/nvshmem.h"
  if [ "$lay" = v2 ]; then
    local nccl_h ver
    nccl_h=$("$PY" -c "import nvidia.nccl as m, os; print(os.path.join(m.__path__[0], 'include', 'nccl.h'))" 2>/dev/null)
    [ -f "${nccl_h:-/nonexistent}" ] || nccl_h=/usr/include/nccl.h
    ver=$(awk '/#define NCCL_MAJOR/ {a=$3} /#define NCCL_MINOR/ {b=$3} /#define NCCL_PATCH/ {c=$3} END {print a"."b"."c}' "$nccl_h" 2>/dev/null)
    [ -d "$SRC/third-party/fmt/include" ] ||
      fail "$SRC is DeepEP V2 ($(version)): its third-party/fmt submodule is not checked out (git submodule update --init, where there is a network), and V2 needs NCCL >= 2.30.4 (this machine: $ver at $nccl_h). The v1 release builds here: git -C $SRC checkout v1.2.1"
    case "$ver" in 2.30.[4-9]*|2.3[1-9].*|2.[4-9]?.*) ;;
      *) fail "$SRC is DeepEP V2 ($(version)): it needs NCCL >= 2.30.4 (its README; nccl_device/ GIN headers), this machine has $ver ($nccl_h). The v1 release builds here: git -C $SRC checkout v1.2.1" ;;
    esac
  fi
  mkdir -p "$OUTDIR"
  echo "== DeepEP $(version) ($lay) from $SRC, NVSHMEM $nvshmem, sm_90 -> $OUTDIR (log: $OUTDIR/build.log)"
  if (cd "$SRC" && NVSHMEM_DIR=$nvshmem TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=${JOBS:-$(nproc)} \
        "$PY" setup.py build --build-base "$OUTDIR/build") > "$OUTDIR/build.log" 2>&1; then
    local lib
    lib=$(find "$OUTDIR/build" -maxdepth 1 -type d -name 'lib*' | head -n1)
    [ -n "$lib" ] || fail "setup.py build left no lib* folder under $OUTDIR/build (see $OUTDIR/build.log)"
    ln -sfn "$lib" "$OUTDIR/lib"
    (cd /tmp && PYTHONPATH=$OUTDIR/lib "$PY" -c "import deep_ep") > "$OUTDIR/import.log" 2>&1 ||
      fail "built, but 'import deep_ep' fails (last lines of $OUTDIR/import.log):$(echo; tail -n 15 "$OUTDIR/import.log")"
    echo "built: $OUTDIR/lib (PYTHONPATH)"
  else
    echo "deepep.sh: the DeepEP build failed; last lines of $OUTDIR/build.log:" >&2
    grep -E "error|Error" "$OUTDIR/build.log" | head -n 20 >&2
    tail -n 20 "$OUTDIR/build.log" >&2
    exit 1
  fi
}

run() {
  local out=${1:-}
  [ -n "$out" ] || { echo "deepep.sh: error: run needs OUT_DIR" >&2; exit 2; }
  shift
  mkdir -p "$out" || exit 2
  [ -d "$OUTDIR/lib" ] || build
  local np=${NP:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
  [ "${np:-0}" -ge 2 ] || fail "NP=$np: DeepEP's tests and the study need 2 GPUs or more"
  local bin=$BUILD/bin
  for t in pkbench_ep pkbench_ep_ref pkbench_ep_summary; do [ -x "$bin/$t" ] || fail "$bin/$t is not built (cmake --build $BUILD --target $t)"; done
  local mpi=(mpirun -np "$np" -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x CUDA_MODULE_LOADING=EAGER
             --mca btl_vader_single_copy_mechanism none)
  [ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
  local shape=(--hidden="$HIDDEN" --experts="$EXPERTS" --topk="$TOPK")
  echo "== the study: ll at T=$LL_TOKENS, ht and nccl at T=$TOKENS, $np GPUs"
  "${mpi[@]}" "$bin/pkbench_ep" --csv="$out/ep_deepep.csv" --ops=dispatch_combine --impls=ll,ht,nccl --routings=uniform \
    --tokens="$LL_TOKENS,$TOKENS" --ll-max-tokens="$LL_TOKENS" "${shape[@]}" "$@" > "$out/ep_deepep.log" 2>&1 ||
    fail "pkbench_ep failed (see $out/ep_deepep.log)"
  local dir
  dir=$(tests_dir)
  local deepep_args=(--num-processes "$np" --hidden "$HIDDEN" --num-topk "$TOPK" --num-experts "$EXPERTS")
  echo "== DeepEP $(version): $dir/test_intranode.py --num-tokens $TOKENS"
  (cd "$dir" && PYTHONPATH=$OUTDIR/lib:${PYTHONPATH:-} timeout 900 "$PY" test_intranode.py --num-tokens "$TOKENS" "${deepep_args[@]}") \
    > "$out/deepep_intranode.log" 2>&1 || fail "DeepEP test_intranode.py failed (see $out/deepep_intranode.log)"
  echo "== DeepEP $(version): $dir/test_low_latency.py --num-tokens $LL_TOKENS"
  local ll_ok=1
  (cd "$dir" && PYTHONPATH=$OUTDIR/lib:${PYTHONPATH:-} NVSHMEM_REMOTE_TRANSPORT=none timeout 900 "$PY" test_low_latency.py \
    --num-tokens "$LL_TOKENS" "${deepep_args[@]}") > "$out/deepep_low_latency.log" 2>&1 ||
    { ll_ok=0; echo "deepep.sh: DeepEP test_low_latency.py failed (see $out/deepep_low_latency.log); the normal mode is merged alone" >&2; }
  local ll=()
  [ "$ll_ok" = 1 ] && ll=(--low-latency "$out/deepep_low_latency.log" --ll-tokens "$LL_TOKENS")
  "$bin/pkbench_ep_ref" "$out/ep_deepep.csv" --ranks "$np" --version "$(version)" --intranode "$out/deepep_intranode.log" "${ll[@]}" ||
    fail "no row of $out/ep_deepep.csv matched DeepEP's shape"
  "$bin/pkbench_ep_summary" "$out/ep_deepep.csv" "$out" || exit 1
  [ "$ll_ok" = 1 ] || exit 1
}

"$cmd" "$@"
