# GEMM study tests (tests/CMakeLists.txt includes every tests/*.cmake).
# CPU: tile orders, shapes, variant checks (in pkbench_cpu_tests, label cpu).
# GPU: pkbench_gemm_gpu_tests (label gpu; each test skips with the reason without a
# Hopper GPU): results against cuBLASLt and fp64 host dot products, SM counts, %smid.
if(TARGET pkbench_gemm_core)
  target_sources(pkbench_cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpu/test_gemm.cpp)
  target_link_libraries(pkbench_cpu_tests PRIVATE pkbench_gemm_core)

  add_executable(pkbench_gemm_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/gpu/test_gemm_gpu.cu)
  target_link_libraries(pkbench_gemm_gpu_tests PRIVATE pkbench_gemm_core pkbench_gemm_cublas GTest::gtest_main)
  pk_discover_tests(pkbench_gemm_gpu_tests
    PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_REGULAR_EXPRESSION "SKIPPED" ENVIRONMENT "CUDA_MODULE_LOADING=EAGER")
endif()

if(TARGET pkbench_gemm)
  set(_gemm_expect ${CMAKE_CURRENT_LIST_DIR}/cli/expect_exit.sh)
  add_test(NAME gemm_cli_bad_shape COMMAND ${_gemm_expect} 2 "--shapes: 1000x256x64 does not fit"
    $<TARGET_FILE:pkbench_gemm> --shapes=1000x256x64)
  add_test(NAME gemm_cli_bad_sms COMMAND ${_gemm_expect} 2 "--sms"
    $<TARGET_FILE:pkbench_gemm> --sms=0)
  add_test(NAME gemm_cli_unknown_flag COMMAND ${_gemm_expect} 2 "bogus"
    $<TARGET_FILE:pkbench_gemm> --bogus=1)
  add_test(NAME gemm_cli_list_or_no_gpu COMMAND ${_gemm_expect} 0,3 "gemm/|no GPU"
    $<TARGET_FILE:pkbench_gemm> --list --sms=66)
  set_tests_properties(gemm_cli_bad_shape gemm_cli_bad_sms gemm_cli_unknown_flag gemm_cli_list_or_no_gpu
    PROPERTIES LABELS cpu)
endif()
