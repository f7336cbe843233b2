#!/usr/bin/env bash
# One device call (the `device` tool): build, the GPU tests (alone and under mpirun), then the
# transfer and sync studies in peer modes single, ipc and vmm side by side, and the
# comparison. Everything lands in $OUT (logs + one tarball).
#   PKBENCH_GIT_COMMIT=<sha> bash scripts/device-peer-modes.sh [TRANSFER_FLAGS...]
# Defaults: the transfer study's default preset, the sync study's cross_gpu level.
# PKBENCH_SKIP_TESTS=1 skips the GPU tests; PKBENCH_MODES="single ipc vmm" picks modes.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${OUT:?device-peer-modes.sh writes to \$OUT}"
export PKBENCH_BUILD_DIR=${PKBENCH_BUILD_DIR:-/tmp/pkbench-build} CUDA_MODULE_LOADING=EAGER
# Only the core studies: the others are configured (and compiled) by their own scripts.
export PKBENCH_CMAKE_ARGS="${PKBENCH_CMAKE_ARGS:-} -DPKBENCH_STUDIES=none"
export PKBENCH_GIT_COMMIT=$(pk_git_commit)
t0=$(date +%s)
machine=$(pk_machine_name) || { echo "no GPU" >&2; exit 3; }
res=$OUT/peer-modes
mkdir -p "$res"
transfer_flags=("$@")
[ ${#transfer_flags[@]} -eq 0 ] && transfer_flags=(--preset=default)
{
  nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.max.sm --format=csv
  nvidia-smi topo -m
  mpirun --version | head -n1
  pk_build pkbench_transfer pkbench_sync pkbench_gpu_tests pkbench_mpi_tests pkbench_transfer_summary \
    pkbench_sync_summary pkbench_peer_modes 2>&1 | tail -n 3
} > "$OUT/build.log" 2>&1
build_s=$(( $(date +%s) - t0 ))
echo "build ${build_s}s" | tee -a "$OUT/build.log"
if [ "${PKBENCH_SKIP_TESTS:-0}" != 1 ]; then
  timeout 420 ctest --test-dir "$PKBENCH_BUILD_DIR" -L gpu -R "PeerModes|SyncGpuLocal|gpu_tests_ipc_vmm|gpu_killed_rank" --output-on-failure --timeout 240 \
    > "$OUT/gpu_tests.log" 2>&1
  echo "gpu tests rc=$? after $(( $(date +%s) - t0 ))s: $(grep -E 'tests passed' "$OUT/gpu_tests.log")" | tee -a "$OUT/build.log"
fi
bin=$PKBENCH_BUILD_DIR/microbench
for mode in ${PKBENCH_MODES:-single ipc vmm}; do
  mkdir -p "$res/$mode"
  mapfile -t launcher < <(pk_launcher "$mode")
  s0=$(date +%s)
  timeout "${PKBENCH_TRANSFER_TIMEOUT:-300}" "${launcher[@]}" "$bin/pkbench_transfer" --peer-mode="$mode" \
    --csv="$res/$mode/transfer.csv" "${transfer_flags[@]}" > "$res/$mode/transfer.log" 2>&1
  trc=$?
  s1=$(date +%s)
  timeout 150 "${launcher[@]}" "$bin/pkbench_sync" --peer-mode="$mode" --levels="${PKBENCH_SYNC_LEVELS:-cross_gpu}" \
    --csv="$res/$mode/sync.csv" > "$res/$mode/sync.log" 2>&1
  src=$?
  s2=$(date +%s)
  printf 'transfer %s: %ss (exit %s; %ss with the build of %ss); sync: %ss (exit %s)\n' "${transfer_flags[*]}" \
    $((s1 - s0)) $trc $((s1 - s0 + build_s)) $build_s $((s2 - s1)) $src > "$res/$mode/timing.txt"
  printf '%q ' "${launcher[@]}" build/microbench/pkbench_transfer --peer-mode="$mode" "${transfer_flags[@]}" \
    > "$res/$mode/transfer.command"
  printf '%q ' "${launcher[@]}" build/microbench/pkbench_sync --peer-mode="$mode" \
    --levels="${PKBENCH_SYNC_LEVELS:-cross_gpu}" > "$res/$mode/sync.command"
  "$PKBENCH_BUILD_DIR/sweeps/pkbench_transfer_summary" "$res/$mode/transfer.csv" "$res/$mode" >/dev/null 2>&1
  echo "$mode: $(cat "$res/$mode/timing.txt"); $(tail -n 1 "$res/$mode/transfer.log")" | tee -a "$OUT/build.log"
done
args=()
for mode in ${PKBENCH_MODES:-single ipc vmm}; do args+=("$mode=$res/$mode"); done
"$PKBENCH_BUILD_DIR/sweeps/pkbench_peer_modes" "$res/peer_modes.md" "${args[@]}" | tee -a "$OUT/build.log"
tar czf "$OUT/peer-modes.tgz" -C "$OUT" peer-modes && rm -rf "$res"
echo "total $(( $(date +%s) - t0 ))s" | tee -a "$OUT/build.log"
grep -E "\*\*no\*\*|comparisons" "$OUT/build.log" | tail -n 5
tail -n 25 "$OUT/gpu_tests.log" 2>/dev/null | grep -vE "^\s*$"
