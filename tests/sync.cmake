# Synchronisation study tests (tests/CMakeLists.txt includes the tests file of every study
# configured). CPU (label cpu): the sweeps' sync summary (in pkbench_cpu_tests) and the
# binary's argument checks. GPU (label gpu): every level in pkbench_gpu_tests, and a rank
# killed under mpirun ends the run.
if(TARGET pkbench_sweeps)
  target_sources(pkbench_cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sync_summary.cpp)
endif()
target_sources(pkbench_gpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu/test_sync_gpu.cu)
target_link_libraries(pkbench_gpu_tests PRIVATE pkbench_sync_core)

if(TARGET pkbench_sync)
  pk_cli_test(sync_cli_bad_level pkbench_sync 2 "unknown level" --levels=warp_drive)
  pk_cli_test(sync_cli_negative_iters pkbench_sync 2 "--iters" --iters=-3)
  pk_cli_test(sync_cli_zero_iters pkbench_sync 2 "--iters" --iters=0)
  pk_cli_test(sync_cli_same_gpu_twice pkbench_sync 2 "names GPU 1 twice" --gpus=1,1)
  pk_cli_test(sync_cli_unwritable_csv pkbench_sync 2 "cannot write" --csv=/nonexistent/dir/s.csv)
  pk_cli_test(sync_cli_list pkbench_sync 0 "sync/cross_gpu/flag_pingpong/sys/relaxed/" --list)
  if(PKBENCH_HAVE_MPI)
    add_test(NAME gpu_killed_rank_ends_the_run COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/killed_rank.sh
      $<TARGET_FILE:pkbench_sync> ${PKBENCH_MPIRUN})
    set_tests_properties(gpu_killed_rank_ends_the_run PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 77 TIMEOUT 120)
  endif()
endif()
