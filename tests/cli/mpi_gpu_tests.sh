#!/usr/bin/env bash
# mpi_gpu_tests.sh TEST_BINARY MPIRUN...: the GPU tests in peer modes ipc and vmm, one rank
# per GPU on two GPUs. Exit 77 (ctest: skipped) with the reason where two GPUs are not here.
bin=$1
shift
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${n:-0}" -lt 2 ]; then
  echo "SKIPPED: needs 2 GPUs for one rank per GPU (this machine has ${n:-0})"
  exit 77
fi
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
exec "$@" -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x CUDA_MODULE_LOADING \
  "$bin"
