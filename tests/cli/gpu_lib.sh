# Sourced by the multi-GPU CLI tests.
# pk_need_gpus N [WHY]: exit 77 (ctest: skipped), saying so, unless this machine has N GPUs.
pk_need_gpus() {
  local have
  have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ "${have:-0}" -lt "$1" ]; then
    echo "SKIPPED: needs $1 GPUs${2:+ $2} (this machine has ${have:-0})"
    exit 77
  fi
}
# Multicast is never run on shared machines: off for NCCL, NVSHMEM and torch, here and, through
# mpirun's -x flags in pk_no_multicast_x, on every rank.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
pk_no_multicast_x=(-x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST)
