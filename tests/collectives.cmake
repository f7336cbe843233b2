# Collective study tests (tests/CMakeLists.txt includes every tests/*.cmake).
# CPU (label cpu): pkbench_collectives_cpu_tests (busbw factors, sizes and their refusals,
# the reference, the layouts simulated on the host, the LL line geometry, the NCCL
# configurations, nccl-tests' timing method on a fake clock, its output parser and the
# reference merge, multicast rules, the run order: NVSHMEM's points last)
# and the binary's argument checks. GPU (label gpu): pkbench_collectives_gpu_tests (one
# process, 2 GPUs) and the binary on odd counts, alone and under mpirun -np 2; without a
# GPU they skip (the binary exits 3, which ctest counts as skipped).
if(TARGET pkbench_coll_problem)
  add_executable(pkbench_collectives_cpu_tests ${CMAKE_CURRENT_LIST_DIR}/cpu/test_collectives.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cpu/test_collectives_ll.cpp ${CMAKE_CURRENT_LIST_DIR}/cpu/test_nccltests_method.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cpu/test_nccltests_output.cpp ${CMAKE_CURRENT_LIST_DIR}/cpu/test_coll_order.cpp)
  target_link_libraries(pkbench_collectives_cpu_tests PRIVATE pkbench_coll_problem GTest::gtest_main)
  pk_discover_tests(pkbench_collectives_cpu_tests PROPERTIES LABELS cpu)
endif()

if(TARGET pkbench_coll_core)
  add_executable(pkbench_collectives_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/gpu/test_collectives_gpu.cu)
  target_link_libraries(pkbench_collectives_gpu_tests PRIVATE pkbench_coll_core GTest::gtest_main)
  pk_discover_tests(pkbench_collectives_gpu_tests
    PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_REGULAR_EXPRESSION "SKIPPED" ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;CUDA_DEVICE_MAX_CONNECTIONS=32")
  pk_virtual_rank_tests(pkbench_collectives_gpu_tests)
  # The all-reduce registry needs no GPU: its test of the GPU binary runs as a CPU test too.
  add_test(NAME collectives_registry COMMAND pkbench_collectives_gpu_tests --gtest_filter=CollectivesRegistry.*)
  set_tests_properties(collectives_registry PROPERTIES LABELS cpu)
endif()

if(TARGET pkbench_collectives)
  set(_coll_expect ${CMAKE_CURRENT_LIST_DIR}/cli/expect_exit.sh)
  set(_coll_bin $<TARGET_FILE:pkbench_collectives>)
  add_test(NAME collectives_cli_bad_dtype COMMAND ${_coll_expect} 2 "unsupported dtype" ${_coll_bin} --dtypes=fp16)
  add_test(NAME collectives_cli_unknown_impl COMMAND ${_coll_expect} 2 "unknown implementation" ${_coll_bin} --impls=ring9)
  # Every all-reduce algorithm listed in ar_list.h is accepted by name and planned (--list
  # plans for a reference GPU where there is none); the names are read from the list itself.
  file(STRINGS ${CMAKE_SOURCE_DIR}/microbench/collectives/ar_list.h _ar_lines REGEX "^PK_ALL_REDUCE\\(")
  foreach(_ar_line ${_ar_lines})
    string(REGEX REPLACE "^PK_ALL_REDUCE\\(([a-z0-9_]+)\\).*" "\\1" _ar ${_ar_line})
    add_test(NAME collectives_cli_all_reduce_${_ar} COMMAND ${_coll_expect} 0 "^all_reduce/${_ar}/bf16/4096/eager$"
      ${_coll_bin} --list --collectives=all_reduce --impls=${_ar} --sizes=4K --dtypes=bf16 --modes=eager)
    set_tests_properties(collectives_cli_all_reduce_${_ar} PROPERTIES LABELS cpu)
  endforeach()
  # Every collective listed in coll_list.h is accepted by name and planned (its points named
  # after it); a name not listed is refused, the flag named.
  file(STRINGS ${CMAKE_SOURCE_DIR}/microbench/collectives/coll_list.h _coll_lines REGEX "^PK_COLLECTIVE\\(")
  foreach(_coll_line ${_coll_lines})
    string(REGEX REPLACE "^PK_COLLECTIVE\\(([a-z0-9_]+),.*" "\\1" _c ${_coll_line})
    add_test(NAME collectives_cli_collective_${_c} COMMAND ${_coll_expect} 0 "^${_c}/[a-z0-9_]+/bf16/[0-9]+/eager$"
      ${_coll_bin} --list --collectives=${_c} --sizes=64K --tensor-sizes=8M --dtypes=bf16 --modes=eager)
    set_tests_properties(collectives_cli_collective_${_c} PROPERTIES LABELS cpu)
  endforeach()
  add_test(NAME collectives_cli_unknown_collective COMMAND ${_coll_expect} 2 "--collectives: unknown collective 'bogus'"
    ${_coll_bin} --collectives=all_reduce,bogus)
  set_tests_properties(collectives_cli_unknown_collective PROPERTIES LABELS cpu)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/microbench/collectives/ar_list.h
    ${CMAKE_SOURCE_DIR}/microbench/collectives/coll_list.h)
  add_test(NAME collectives_cli_bad_mode COMMAND ${_coll_expect} 2 "unknown launch mode" ${_coll_bin} --modes=lazy)
  # The GPU-count sweep planned for a node of 8 (--world): one round per count with its
  # estimate; a count above the run's and an unknown preset are refused before any GPU.
  add_test(NAME collectives_cli_list_gpu_counts COMMAND ${_coll_expect} 0 "plan: [0-9]+ points, about .*\\(2 GPUs: .* 8 GPUs: "
    ${_coll_bin} --list --arch=sm_90a --world=8 --gpu-counts=all --preset=main)
  add_test(NAME collectives_cli_list_partial_round COMMAND bash -c [=[
      plan=$("$0" --list --arch=sm_90a --world=3 --gpu-counts=2,3 --preset=main 2>/dev/null) || { echo "$plan"; exit 1; }
      # The partial round (2 of 3 GPUs): all-reduce, all-gather and reduce-scatter, graph mode,
      # NCCL default and symmetric, no NVSHMEM; the full round has every collective.
      echo "$plan" | awk '/^# 2 GPUs/ { r = 2; next } /^# 3 GPUs/ { r = 3; next } r == 2 && /\// {
          n2++; if ($0 !~ /^(all_reduce|all_gather|reduce_scatter)\// || $0 !~ /\/graph$/ || $0 ~ /nvshmem|nccl_(ll|simple)/) { print "partial: " $0; bad = 1 } }
        r == 3 && /^broadcast\// { b3++ }
        END { if (!n2 || !b3) { print "rounds missing"; bad = 1 }; exit bad }' && echo "rounds as the preset says"
      ]=] ${_coll_bin})
  # Sizes given for the run's GPUs are rounded down on fewer where they do not split (64 KiB of
  # all-gather on 3 GPUs: 65532 B), as nccl-tests does; the full round keeps them exactly.
  add_test(NAME collectives_cli_partial_round_rounds_sizes_down COMMAND bash -c [=[
      plan=$("$0" --list --arch=sm_90a --world=4 --gpu-counts=3,4 --collectives=all_gather --impls=ll --dtypes=bf16 --modes=eager --sizes=64K 2>&1) ||
        { echo "$plan"; exit 1; }
      echo "$plan" | tr '\n' ' ' | grep -q "# 3 GPUs all_gather/ll/bf16/65532/eager # 4 GPUs all_gather/ll/bf16/65536/eager" ||
        { echo "$plan"; exit 1; }
      echo "3 GPUs: 65532 B, 4 GPUs: 65536 B"
      ]=] ${_coll_bin})
  add_test(NAME collectives_cli_gpu_counts_bad COMMAND ${_coll_expect} 2 "--gpu-counts=9: 9 GPUs" ${_coll_bin} --gpu-counts=9)
  add_test(NAME collectives_cli_unknown_preset COMMAND ${_coll_expect} 2 "--preset: unknown preset 'bogus'" ${_coll_bin} --preset=bogus)
  set_tests_properties(collectives_cli_list_gpu_counts collectives_cli_list_partial_round collectives_cli_partial_round_rounds_sizes_down
    collectives_cli_gpu_counts_bad
    collectives_cli_unknown_preset PROPERTIES LABELS cpu)
  # The GPU-count sweep run and verified on one GPU with 4 and 8 virtual ranks (every count
  # 2..N in one process; the main preset's partial rounds below N).
  foreach(_n 4 8)
    add_test(NAME collectives_gpu_virtual_${_n}_gpu_counts COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/gpu_counts_virtual.sh ${_n}
      ${_coll_bin} --preset=main --sizes=64K,1M --tensor-sizes=8M --samples=2 --warmup-ms=1 --gap-ms=0 --nccltests-iters=2)
    set_tests_properties(collectives_gpu_virtual_${_n}_gpu_counts PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 3
      TIMEOUT 900 ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;CUDA_DEVICE_MAX_CONNECTIONS=32;NCCL_NVLS_ENABLE=0;NVSHMEM_DISABLE_NVLS=1")
  endforeach()
  add_test(NAME collectives_cli_list_or_no_gpu COMMAND ${_coll_expect} 0,3 "all_reduce/|no GPU" ${_coll_bin} --list)
  add_test(NAME collectives_cli_unknown_nccl_config COMMAND ${_coll_expect} 2 "--nccl-configs: unknown configuration"
    ${_coll_bin} --nccl-configs=default,LL/NVLS)
  add_test(NAME collectives_cli_impl_outside_nccl_configs COMMAND ${_coll_expect} 2 "not in --nccl-configs"
    ${_coll_bin} --impls=nccl_ll_ring --nccl-configs=default,symmetric)
  # Launch knobs and the tuning table: refused before any GPU is looked for, the flag named.
  add_test(NAME collectives_cli_bad_coll_sms COMMAND ${_coll_expect} 2 "--coll-sms=0: 0: at least one" ${_coll_bin} --coll-sms=0)
  add_test(NAME collectives_cli_bad_coll_threads COMMAND ${_coll_expect} 2 "--coll-threads=auto,100: 100: .*multiple of 32"
    ${_coll_bin} --coll-threads=auto,100)
  add_test(NAME collectives_cli_coll_threads_no_kernel COMMAND ${_coll_expect} 2
    "--coll-threads=1024: no selected implementation of ours launches with it .one_shot: threads=1024 outside"
    ${_coll_bin} --impls=one_shot,nccl --coll-threads=1024)
  # Knob pairs are points of their own, named after the implementation; push_tma's threads are
  # compiled in: it runs at the grids only (said in a note).
  add_test(NAME collectives_cli_list_knobs COMMAND ${_coll_expect} 0,3
    "all_reduce/one_shot.sms=8,threads=auto./bf16/65536/eager|no GPU"
    ${_coll_bin} --list --collectives=all_reduce,all_gather --sizes=64K --impls=one_shot,push_tma --coll-sms=auto,8
    --coll-threads=auto,256)
  add_test(NAME collectives_cli_tuning_table_missing COMMAND ${_coll_expect} 2 "--tuning-table=/nonexistent.json: .*cannot read"
    ${_coll_bin} --tuning-table=/nonexistent.json)
  add_test(NAME collectives_cli_tuning_table_schema COMMAND ${_coll_expect} 2 "--tuning-table=.*schema_version 2"
    ${_coll_bin} --tuning-table=${CMAKE_CURRENT_LIST_DIR}/fixtures/tuning_schema2.json)
  set_tests_properties(collectives_cli_bad_dtype collectives_cli_unknown_impl collectives_cli_bad_mode
    collectives_cli_list_or_no_gpu collectives_cli_unknown_nccl_config collectives_cli_impl_outside_nccl_configs
    collectives_cli_bad_coll_sms collectives_cli_bad_coll_threads collectives_cli_list_knobs collectives_cli_coll_threads_no_kernel
    collectives_cli_tuning_table_missing collectives_cli_tuning_table_schema
    PROPERTIES LABELS cpu)
  if(TARGET pkbench_tune)
    # A collectives CSV of virtual ranks: refused as tuning input, unless --allow-virtual, whose
    # table names the virtual machine (fixturex1-virtual2), which no real machine matches.
    add_test(NAME collectives_tune_refuses_virtual COMMAND ${_coll_expect} 2 "virtual ranks.*--allow-virtual"
      $<TARGET_FILE:pkbench_tune> --out ${CMAKE_CURRENT_BINARY_DIR}
      ${CMAKE_CURRENT_LIST_DIR}/fixtures/collectives_knobs_fixture.csv)
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tune_virtual)
    add_test(NAME collectives_tune_allow_virtual COMMAND ${_coll_expect} 0 "wrote .*collectives_tuning.csv"
      $<TARGET_FILE:pkbench_tune> --allow-virtual --out ${CMAKE_CURRENT_BINARY_DIR}/tune_virtual
      ${CMAKE_CURRENT_LIST_DIR}/fixtures/collectives_knobs_fixture.csv)
    add_test(NAME collectives_tune_virtual_apart COMMAND ${_coll_expect} 2 "write the virtual one apart"
      $<TARGET_FILE:pkbench_tune> --allow-virtual --out ${CMAKE_CURRENT_BINARY_DIR}/tune_virtual
      ${CMAKE_CURRENT_LIST_DIR}/fixtures/collectives_knobs_fixture.csv ${CMAKE_CURRENT_LIST_DIR}/fixtures/collectives_fixture.csv)
    set_tests_properties(collectives_tune_refuses_virtual collectives_tune_allow_virtual collectives_tune_virtual_apart
      PROPERTIES LABELS cpu)
  endif()
  # ref_check.sh's wiring (same sizes, dtype, iterations and modes to the study and to
  # nccl-tests, the merge, the sweeps' cross-check summary) with stand-ins for both; no GPU needed.
  add_test(NAME collectives_ref_check_script COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/coll_ref_check.sh
    ${CMAKE_SOURCE_DIR} $<TARGET_FILE:pkbench_coll_ref> $<TARGET_FILE:pkbench_collectives_summary>)
  set_tests_properties(collectives_ref_check_script PROPERTIES LABELS cpu PASS_REGULAR_EXPRESSION "PASS"
    FAIL_REGULAR_EXPRESSION "FAIL")
  pk_cli_test(collectives_ref_cli_plan_alone pkbench_coll_ref 2 "--csv excludes --plan" --plan all_reduce default --csv=x.csv)
  pk_cli_test(collectives_ref_cli_unknown_config pkbench_coll_ref 2 "unknown nccl_config 'Bogus'" --csv=x.csv --nccl-tests=Bogus:x.txt)
  if(TARGET pkbench_nvshmem_runtime)  # built with NVSHMEM: the baseline is registered (its rows need mpirun)
    add_test(NAME collectives_cli_list_nvshmem_or_no_gpu COMMAND ${_coll_expect} 0,3
      "all_reduce/nvshmem/bf16/4096/eager|no GPU" ${_coll_bin} --list --impls=nvshmem --sizes=4K)
    # NVSHMEM's points run after every other point (coll_order.h: NVSHMEM in the process inflated
    # every host-timed row), here with nvshmem named first; --list prints the run order.
    add_test(NAME collectives_cli_list_nvshmem_last COMMAND bash -c [=[
      plan=$("$0" --list --collectives=all_reduce --impls=nvshmem,nccl,one_shot --sizes=4K --dtypes=bf16 2>&1); rc=$?
      case $rc in 0) ;; 3) echo "no GPU: nothing listed (skipped)"; exit 3 ;; *) echo "exit $rc: $out"; exit 1 ;; esac
      echo "$plan" | awk '/^all_reduce\// { if ($0 ~ /\/nvshmem\//) late = 1; else if (late) { print "after an NVSHMEM point: " $0; bad = 1 } }
        END { if (!late) { print "no NVSHMEM point listed"; bad = 1 }; exit bad }' && echo "NVSHMEM points last"
      ]=] ${_coll_bin})
    set_tests_properties(collectives_cli_list_nvshmem_or_no_gpu collectives_cli_list_nvshmem_last PROPERTIES LABELS cpu)
    set_tests_properties(collectives_cli_list_nvshmem_last PROPERTIES SKIP_RETURN_CODE 3)
  endif()
  # --allow-multicast is refused whenever the environment keeps multicast off, and the
  # refusal needs no GPU. Each variable alone refuses.
  foreach(_mc NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1)
    string(REGEX REPLACE "=.*" "" _mc_name ${_mc})
    add_test(NAME collectives_cli_multicast_refused_${_mc_name}
      COMMAND ${CMAKE_COMMAND} -E env --unset=NCCL_NVLS_ENABLE --unset=NVSHMEM_DISABLE_NVLS
              --unset=TORCH_SYMM_MEM_DISABLE_MULTICAST ${_mc}
              ${_coll_expect} 2 "multicast refused: ${_mc_name}" ${_coll_bin} --allow-multicast)
    set_tests_properties(collectives_cli_multicast_refused_${_mc_name} PROPERTIES LABELS cpu)
  endforeach()
  # Odd element counts for every collective, both dtypes and launch modes, checked after
  # timing (a wrong element makes the run exit 1).
  set(_coll_odd --counts=1,1001,65537 --tensor-counts=3 --tensor-cols=1001 --a2a-shape=2,4,33
    --samples=2 --warmup-ms=1 --gap-ms=0 --ops-per-sample=3 --nccltests-iters=2)
  add_test(NAME collectives_gpu_single_process COMMAND ${_coll_bin} ${_coll_odd} --csv=${CMAKE_CURRENT_BINARY_DIR}/coll_single.csv)
  set_tests_properties(collectives_gpu_single_process PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 3
    ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;NCCL_NVLS_ENABLE=0")
  if(PKBENCH_HAVE_MPI AND MPIEXEC_EXECUTABLE)
    # Two ranks need two GPUs (one rank per GPU): skipped on a one-GPU machine.
    set(_needs2 ${CMAKE_CURRENT_LIST_DIR}/cli/needs_gpus.sh 2)
    add_test(NAME collectives_cli_mpi_list_or_no_gpu COMMAND ${_needs2} ${_coll_expect} 0,3 "all_reduce/|no GPU"
      ${MPIEXEC_EXECUTABLE} -np 2 --allow-run-as-root --oversubscribe ${_coll_bin} --list)
    set_tests_properties(collectives_cli_mpi_list_or_no_gpu PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
    add_test(NAME collectives_gpu_mpirun COMMAND ${_needs2} --skip-without-gpu ${MPIEXEC_EXECUTABLE} -np 2 --allow-run-as-root --oversubscribe
      -x NCCL_NVLS_ENABLE=0 -x CUDA_MODULE_LOADING=EAGER ${_coll_bin} ${_coll_odd}
      --csv=${CMAKE_CURRENT_BINARY_DIR}/coll_mpi.csv)
    set_tests_properties(collectives_gpu_mpirun PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 77)
  endif()
endif()
