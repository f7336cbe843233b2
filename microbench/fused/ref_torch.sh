#!/usr/bin/env bash
# PyTorch as the reference tool of the fused and collective studies, in one invocation:
# ref_torch.py under torchrun (one process per GPU), then pkbench_torch_ref merges its rows into
# the study CSVs given (ref_tool, ref_time_us, ref_ratio) and prints them.
#   microbench/fused/ref_torch.sh OUT_DIR [--fused=CSV] [--collectives=CSV] [-- ref_torch.py flags...]
# Writes OUT_DIR/torch.csv and OUT_DIR/torch.log. Where `python3 -c "import torch"` fails, it says
# so and exits 0 with nothing run (the studies' rows keep empty reference columns).
# Environment: NP [the GPUs nvidia-smi lists], BUILD [build] (pkbench_torch_ref in BUILD/bin),
#   PYTHON [python3], TORCHRUN [torchrun, else PYTHON -m torch.distributed.run].
# Multicast stays off: TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NCCL_NVLS_ENABLE=0 unless set (the
# driver refuses other values).
set -uo pipefail
cd "$(dirname "$0")/../.."
usage() { echo "usage: microbench/fused/ref_torch.sh OUT_DIR [--fused=CSV] [--collectives=CSV] [-- ref_torch.py flags]" >&2; exit 2; }
[ $# -ge 1 ] || usage
case $1 in -h|--help) sed -n '2,12p' "$0"; exit 0 ;; -*) usage ;; esac
O=$1
shift
merge=()
while [ $# -gt 0 ]; do
  case $1 in
    --fused=*|--collectives=*) f=${1#*=}; [ -f "$f" ] || { echo "ref_torch.sh: ${1%%=*}: no file '$f'" >&2; exit 2; }; merge+=("$1") ;;
    --) shift; break ;;
    *) echo "ref_torch.sh: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done
PYTHON=${PYTHON:-python3}
BUILD=${BUILD:-build}
REF=${REF:-$BUILD/bin/pkbench_torch_ref}
if ! why=$("$PYTHON" -c "import torch, torch.distributed" 2>&1); then
  echo "ref_torch.sh: skipped: PyTorch is not importable by $PYTHON (${why##*$'\n'})"
  exit 0
fi
NP=${NP:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
[[ $NP =~ ^[0-9]+$ ]] && [ "$NP" -ge 2 ] || { echo "ref_torch.sh: skipped: needs 2 or more GPUs (NP=$NP)"; exit 0; }
export TORCH_SYMM_MEM_DISABLE_MULTICAST=${TORCH_SYMM_MEM_DISABLE_MULTICAST:-1} NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
mkdir -p "$O"
if [ -n "${TORCHRUN:-}" ]; then run=("$TORCHRUN"); elif command -v torchrun >/dev/null; then run=(torchrun); else run=("$PYTHON" -m torch.distributed.run); fi
echo "ref_torch.sh: ${run[*]} --nproc-per-node=$NP microbench/fused/ref_torch.py --csv=$O/torch.csv $*"
"${run[@]}" --standalone --nproc-per-node="$NP" microbench/fused/ref_torch.py --csv="$O/torch.csv" "$@" 2>&1 | tee "$O/torch.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "ref_torch.sh: ref_torch.py exited $rc (log: $O/torch.log)" >&2; exit "$rc"; }
[ ${#merge[@]} -eq 0 ] && exit 0
"$REF" --torch="$O/torch.csv" "${merge[@]}"
