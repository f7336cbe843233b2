# Launch study tests (tests/CMakeLists.txt includes this file when the study is configured). CPU
# (label cpu): pkbench_launch_cpu_tests and the binary's refusals (exit 2, the flag named, also
# without a GPU) and plan. GPU (label gpu): pkbench_launch_gpu_tests (one GPU, virtual ranks at
# 2, 3, 4 and 8, the GPUs of one process, one process per GPU under mpirun).
if(TARGET pkbench_launch_problem)
  pk_study_cpu_tests(launch pkbench_launch_problem)
endif()

if(TARGET pkbench_launch_core)
  pk_study_gpu_tests(pkbench_launch_gpu_tests SOURCES ${CMAKE_SOURCE_DIR}/microbench/launch/test_launch_gpu.cu
    LIBS pkbench_launch_core)
  pk_mpi_script_test(launch_gpu_tests_ipc_vmm_2_ranks mpi_gpu_tests.sh pkbench_launch_gpu_tests 600)
endif()

if(TARGET pkbench_launch)
  pk_cli_test(launch_cli_bad_kernels pkbench_launch 2 "--kernels: 513" --kernels=513)
  pk_cli_test(launch_cli_kernels_over_queue pkbench_launch 2 "--kernels: 64 launches per operation .stream. queue more than --max-enqueued=8"
    --kernels=64 --variants=stream --max-enqueued=8)
  pk_cli_test(launch_cli_bad_blocks pkbench_launch 2 "--blocks: 0" --blocks=0)
  pk_cli_test(launch_cli_unknown_variant pkbench_launch 2 "unknown variant .*'cooperative'" --variants=cooperative)
  pk_cli_test(launch_cli_unknown_preset pkbench_launch 2 "--preset: unknown preset" --preset=huge)
  pk_cli_test(launch_cli_list pkbench_launch 0 "launch/graph_pdl/k64/bsms" --list --arch=sm_90a)
  pk_multicast_refused_tests(launch_cli pkbench_launch)
endif()
