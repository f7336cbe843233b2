#!/usr/bin/env bash
# mpi_gpu_tests.sh [--all-gpus] TEST_BINARY MPIRUN...: the GPU tests in peer modes ipc and vmm,
# one rank per GPU, on two GPUs (MPIRUN as CMake gives it: launcher, process-count flag, 2, ...),
# or with --all-gpus on every GPU of a node of three or more (the 2-rank test covers two), so a
# node's own rank count is tested, not only a pair. Exit 77 (ctest: skipped) with the reason where
# the GPUs are not here.
all=0
[ "${1:-}" = --all-gpus ] && { all=1; shift; }
bin=$1
shift
source "$(dirname "$0")/gpu_lib.sh"
if [ $all = 1 ]; then
  pk_need_gpus 3 "for the all-GPU run (two GPUs are the 2-rank test's)"
  n=$(nvidia-smi -L | grep -c '^GPU')
  launcher=("$@")
  [ "${launcher[2]:-}" = 2 ] || { echo "mpi_gpu_tests.sh: MPIRUN should read 'LAUNCHER COUNT_FLAG 2 ...', got: $*" >&2; exit 1; }
  launcher[2]=$n  # the process count after the launcher's count flag
  set -- "${launcher[@]}"
else
  pk_need_gpus 2 "for one rank per GPU"
fi
export CUDA_MODULE_LOADING=EAGER
exec "$@" "${pk_no_multicast_x[@]}" -x CUDA_MODULE_LOADING "$bin"
