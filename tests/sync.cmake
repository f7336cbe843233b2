# Synchronisation study tests (tests/CMakeLists.txt includes the tests file of every study
# configured). CPU (label cpu): the sweeps' sync summary (in pkbench_cpu_tests) and the
# binary's argument checks. GPU (label gpu): every level in pkbench_gpu_tests, and a rank
# killed under mpirun ends the run.
pk_shared_test_sources(sync)

if(TARGET pkbench_sync)
  pk_cli_test(sync_cli_bad_level pkbench_sync 2 "unknown level" --levels=warp_drive)
  # On three or more GPUs, every pair's signal round trip and dependent load (planned for 4).
  pk_cli_test(sync_cli_list_every_pair pkbench_sync 0 "flag_pingpong_pairs/sys/release_acquire/remote_write_local_poll .GPUs 2-3."
    --list --arch=sm_90a --world=4)
  pk_cli_test(sync_cli_negative_iters pkbench_sync 2 "--iters" --iters=-3)
  pk_cli_test(sync_cli_zero_iters pkbench_sync 2 "--iters" --iters=0)
  pk_cli_test(sync_cli_same_gpu_twice pkbench_sync 2 "names GPU 1 twice" --gpus=1,1)
  pk_cli_test(sync_cli_unwritable_csv pkbench_sync 2 "cannot write" --csv=/nonexistent/dir/s.csv)
  pk_cli_test(sync_cli_list pkbench_sync 0 "sync/cross_gpu/flag_pingpong/sys/relaxed/" --list)
  pk_mpi_script_test(gpu_killed_rank_ends_the_run killed_rank.sh pkbench_sync 120)
endif()
