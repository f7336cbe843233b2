# Tests of the primitives study (microbench/primitives). Included by tests/CMakeLists.txt.
if(NOT TARGET pkbench_primitives_core)
  return()
endif()

# CPU (CI): the catalogue's ordering labels, the CSV reader, the summary on a fixture.
add_executable(pkbench_primitives_cpu_tests cpu/test_primitives.cpp)
target_link_libraries(pkbench_primitives_cpu_tests PRIVATE pkbench_primitives_core pkbench_primitives_analysis GTest::gtest_main)
if(PKBENCH_HAVE_NVSHMEM)
  set_target_properties(pkbench_primitives_cpu_tests PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
endif()
target_compile_definitions(pkbench_primitives_cpu_tests PRIVATE PKBENCH_FIXTURE_DIR="${CMAKE_CURRENT_SOURCE_DIR}/fixtures")
pk_discover_tests(pkbench_primitives_cpu_tests PROPERTIES LABELS cpu)

add_test(NAME primitives_summary_fixture COMMAND ${CMAKE_COMMAND} -E env
  $<TARGET_FILE:pkbench_primitives_summary> ${CMAKE_CURRENT_SOURCE_DIR}/fixtures/primitives_fixture.csv
  ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(primitives_summary_fixture PROPERTIES LABELS cpu
  PASS_REGULAR_EXPRESSION "wrote .*primitives_summary.md from 63 rows")
if(TARGET pkbench_primitives)
  add_test(NAME primitives_cli_bad_op COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh 2 "unknown --ops"
    $<TARGET_FILE:pkbench_primitives> --ops=warp_drive)
  add_test(NAME primitives_cli_list COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh 0
    "primitives/put/nvshmem/thread/4B/blocking" $<TARGET_FILE:pkbench_primitives> --list)
  add_test(NAME primitives_cli_no_gpu_or_runs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/expect_exit.sh 0,3
    "no GPU|rows" $<TARGET_FILE:pkbench_primitives> --ops=store --styles=pk --csv=${CMAKE_CURRENT_BINARY_DIR}/primitives_cli.csv)
  set_tests_properties(primitives_cli_bad_op primitives_cli_list primitives_cli_no_gpu_or_runs PROPERTIES LABELS cpu)
endif()

# GPU, one process: every style's put/get moves the right values; lonely waits time out.
add_executable(pkbench_primitives_gpu_tests gpu/test_primitives_gpu.cu)
target_link_libraries(pkbench_primitives_gpu_tests PRIVATE pkbench_primitives_core GTest::gtest_main)
if(PKBENCH_HAVE_NVSHMEM)
  set_target_properties(pkbench_primitives_gpu_tests PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
endif()
pk_discover_tests(pkbench_primitives_gpu_tests
  PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_REGULAR_EXPRESSION "SKIPPED" ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;NCCL_NVLS_ENABLE=0")

# GPU, one process per GPU (NVSHMEM, NCCL from a unique id over MPI): exit 77 = skipped.
if(PKBENCH_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  add_executable(pkbench_primitives_gpu_mpi_tests gpu/test_primitives_gpu_mpi.cu)
  target_link_libraries(pkbench_primitives_gpu_mpi_tests PRIVATE pkbench_primitives_core GTest::gtest)
  if(PKBENCH_HAVE_NVSHMEM)
    set_target_properties(pkbench_primitives_gpu_mpi_tests PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)
  endif()
  add_test(NAME primitives_gpu_mpi COMMAND ${MPIEXEC_EXECUTABLE} -np 2 --allow-run-as-root --oversubscribe
    -x CUDA_MODULE_LOADING=EAGER -x NCCL_NVLS_ENABLE=0 -x NVSHMEM_DISABLE_NVLS=1 -x TORCH_SYMM_MEM_DISABLE_MULTICAST=1
    $<TARGET_FILE:pkbench_primitives_gpu_mpi_tests>)
  set_tests_properties(primitives_gpu_mpi PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
