#!/usr/bin/env bash
# One call on a lent GPU machine (the `device` tool) for the primitives study: build only
# this study's targets in /tmp, run its benchmark with one process per GPU (mpirun -np 2:
# every style) and in one process (pk / nccl_dev / emulation; NVSHMEM rows skipped), its GPU
# tests, the summary; everything lands in $OUT (at most 8 files come back). Prints a short
# table last. Multicast stays off everywhere.
#   bash microbench/primitives/device.sh          (the tool's `run`, carry [".deps"])
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${OUT:?device.sh writes to \$OUT}"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
# One node: both bootstraps (NCCL's and NVSHMEM's uid plugin, which is NCCL's socket code)
# over loopback, whatever interfaces the VM has.
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}
export PKBENCH_GIT_COMMIT=${PKBENCH_GIT_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
B=${PKBENCH_PRIM_BUILD:-/tmp/pkprim-build}
L=$OUT/logs
mkdir -p "$L"
start=$(date +%s)
el() { echo $(( $(date +%s) - start )); }
budget=${PKBENCH_PRIM_BUDGET:-280}
left() { local l=$(( budget - $(el) )); [ $l -gt 5 ] && echo $l || echo 5; }
cap() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
log() { echo "[$(el)s] $*" | tee -a "$L/steps.log"; }

{
  nvidia-smi; nvidia-smi topo -m; nproc
  echo "--- mpi"; command -v mpirun mpiexec; mpirun --version 2>&1 | head -2
  echo "--- nvshmem"; python3 -c "import nvidia.nvshmem as m; print(m.__path__[0])"
  python3 -m pip show nvidia-nvshmem-cu13 2>/dev/null | head -3
  echo "--- nccl"; ls /usr/include/nccl*.h /usr/local/cuda/include/nccl*.h /usr/lib/x86_64-linux-gnu/libnccl* 2>&1
  grep -h "define NCCL_\(MAJOR\|MINOR\|PATCH\)" /usr/include/nccl.h 2>/dev/null
  env | grep -E "^(NCCL|NVSHMEM|TORCH_SYMM|CUDA_MODULE)" | sort
} > "$L/env.txt" 2>&1

# The shared tree may be mid-edit by other studies: if it does not configure, build this
# study from a copy in which only its own CMake files (and the core's) remain.
if ! cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$L/cmake.log" 2>&1; then
  log "the tree does not configure ($(grep -m1 -A2 'CMake Error' "$L/cmake.log" | tr '\n' ' ')): building from a copy with only this study"
  SRC=/tmp/pkprim-src
  rm -rf "$SRC" "$B" && mkdir -p "$SRC"
  tar --exclude='./build*' --exclude='./.git' -cf - . | tar -xf - -C "$SRC"
  : > "$SRC/sweeps/CMakeLists.txt"
  for d in "$SRC"/microbench/*/; do [ "$(basename "$d")" = primitives ] || rm -f "$d/CMakeLists.txt"; done
  for f in "$SRC"/tests/*.cmake; do [ "$(basename "$f")" = primitives.cmake ] || rm -f "$f"; done
  cmake -S "$SRC" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release > "$L/cmake.log" 2>&1
fi
log "configure rc=$? ($(grep -E 'NVSHMEM|NCCL|MPI|CLI11' "$L/cmake.log" | tr '\n' ' '))"
timeout "$(cap 170)" cmake --build "$B" -j32 --target pkbench_primitives pkbench_primitives_summary \
  pkbench_primitives_gpu_tests pkbench_primitives_gpu_mpi_tests > "$L/build.log" 2>&1
log "build rc=$?"
P=$B/microbench/primitives/pkbench_primitives
MPIRUN=(mpirun -np 2 --allow-run-as-root --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS
        -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x CUDA_MODULE_LOADING -x NCCL_SOCKET_IFNAME
        -x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x PKBENCH_GIT_COMMIT)
if [ -x "$P" ]; then
  if command -v mpirun >/dev/null; then
    timeout "$(cap 80)" "${MPIRUN[@]}" "$P" --csv="$OUT/primitives.csv" > "$L/bench_mpi.log" 2>&1
    log "bench mpi rc=$?"
    # The same run again: how far medians move between runs (the summary's tie margin).
    timeout "$(cap 60)" "${MPIRUN[@]}" "$P" --csv="$OUT/primitives_rerun.csv" > "$L/bench_mpi_rerun.log" 2>&1
    log "bench mpi rerun rc=$?"
  else
    log "no mpirun: the one-process-per-GPU run (and every NVSHMEM row) is not measured"
  fi
  timeout "$(cap 50)" "$P" --csv="$OUT/primitives_single.csv" > "$L/bench_single.log" 2>&1
  log "bench single rc=$?"
  timeout "$(cap 60)" ctest --test-dir "$B" -L gpu -R "Primitives|primitives_gpu" --output-on-failure --timeout 50 \
    > "$L/gpu_tests.log" 2>&1
  log "gpu tests rc=$? ($(grep -E 'tests passed|tests failed' "$L/gpu_tests.log"))"
fi
S=$B/microbench/primitives/pkbench_primitives_summary
csvs=()
[ -x "$P" ] && cuobjdump -sass "$P" 2>/dev/null | gzip > "$L/pkbench_primitives.sass.gz"
for f in "$OUT/primitives.csv" "$OUT/primitives_rerun.csv" "$OUT/primitives_single.csv"; do [ -s "$f" ] && csvs+=("$f"); done
if [ -x "$S" ] && [ ${#csvs[@]} -gt 0 ]; then
  "$S" "${csvs[0]}" "$OUT" "${csvs[@]:1}" > "$L/summary.log" 2>&1
  log "summary rc=$?"
fi
tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"

# ---- the short table ----
echo "=== steps"; tar xzf "$OUT/logs.tgz" -O logs/steps.log 2>/dev/null
for f in "${csvs[@]}"; do
  echo "=== $(basename "$f"): $(awk -F, 'NR>1{n[$0~/,ok,/?"ok":($0~/,skipped,/?"skipped":"error")]++} END{for(k in n) printf "%s=%d ", k, n[k]}' "$f")"
  # errors first (status column found by name)
  awk -F, 'NR==1{for(i=1;i<=NF;i++) c[$i]=i; next} $c["status"]=="error"{print "ERR", $c["op"], $c["style"], $c["scope"], $c["mode"], $c["ordering"], $c["placement"], substr($c["error"],1,150)}' "$f" | head -12
done
[ -f "$OUT/primitives_summary.md" ] && sed -n '/^## The paper/,/^## Element-wise put$/p' "$OUT/primitives_summary.md" | head -30
