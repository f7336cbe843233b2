#!/usr/bin/env bash
# mpi_gpu_tests.sh TEST_BINARY MPIRUN...: the GPU tests in peer modes ipc and vmm, one rank
# per GPU on two GPUs. Exit 77 (ctest: skipped) with the reason where two GPUs are not here.
bin=$1
shift
source "$(dirname "$0")/gpu_lib.sh"
pk_need_gpus 2 "for one rank per GPU"
export CUDA_MODULE_LOADING=EAGER
exec "$@" "${pk_no_multicast_x[@]}" -x CUDA_MODULE_LOADING "$bin"
