# Transfer study tests (tests/CMakeLists.txt includes the tests file of every study configured).
# CPU (label cpu): the grid, presets and refusals (in pkbench_cpu_tests), the sweeps' transfer
# summary, and the binary's argument checks (exit 2 with the flag named, also without a GPU).
# GPU (label gpu): every mechanism's copies in pkbench_gpu_tests (tests/CMakeLists.txt runs
# that binary alone, with virtual ranks and under mpirun).
target_sources(pkbench_cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpu/test_transfer_grid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_transfer_ref.cpp)
pk_shared_test_sources(transfer)

# ref_check.sh's wiring (the study's nvbandwidth preset, the tool on the testcases the rows
# have counterparts in, the merge, the sweeps' cross-check) with stand-ins for both; no GPU.
if(TARGET pkbench_transfer_ref AND TARGET pkbench_transfer_summary)
  add_test(NAME transfer_ref_check_script COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/transfer_ref_check.sh
    ${CMAKE_SOURCE_DIR} $<TARGET_FILE:pkbench_transfer_ref> $<TARGET_FILE:pkbench_transfer_summary>)
  set_tests_properties(transfer_ref_check_script PROPERTIES LABELS cpu PASS_REGULAR_EXPRESSION "PASS"
    FAIL_REGULAR_EXPRESSION "FAIL")
  # --run: the tool run by pkbench_transfer_ref itself, its failures, the refused flags, and
  # scripts/run.sh transfer's after-main step (that one command).
  add_test(NAME transfer_ref_run COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/transfer_ref_run.sh
    ${CMAKE_SOURCE_DIR} $<TARGET_FILE:pkbench_transfer_ref>)
  set_tests_properties(transfer_ref_run PROPERTIES LABELS cpu TIMEOUT 120 FAIL_REGULAR_EXPRESSION "FAIL")
  pk_cli_test(transfer_ref_cli_no_csv pkbench_transfer_ref 2 "--csv: missing" --nvbandwidth=x.json)
  # "--out=" is refused, not read as "--out" taking the next argument for its value.
  pk_cli_test(transfer_ref_cli_empty_out pkbench_transfer_ref 2 "--out is empty" --csv=x.csv --out= --nvbandwidth=x.json)
  pk_cli_test(transfer_ref_cli_unwritable_out pkbench_transfer_ref 2 "--out=/nonexistent/dir/x.csv: folder"
    --csv=x.csv --out=/nonexistent/dir/x.csv --nvbandwidth=x.json)
  # A cell read as a number that is not one is refused with its line (it aborted the tool before).
  pk_cli_test(transfer_ref_cli_bad_gpu_count pkbench_transfer_ref 2 "--csv: .*transfer_ref_bad_gpu_count.csv:2:13: column 'gpu_count': 'two' is not an integer"
    --plan --csv=${CMAKE_CURRENT_LIST_DIR}/fixtures/transfer_ref_bad_gpu_count.csv)
  pk_cli_test(transfer_ref_cli_bad_gbps pkbench_transfer_ref 2 "line 2: gbps 'fast' is not a number"
    --plan --csv=${CMAKE_CURRENT_LIST_DIR}/fixtures/transfer_ref_bad_gbps.csv)
endif()

if(TARGET pkbench_transfer)
  pk_cli_test(transfer_cli_bad_preset pkbench_transfer 2 "--preset" --preset=bogus)
  pk_cli_test(transfer_cli_unknown_flag pkbench_transfer 2 "--bogus" --bogus=1)
  pk_deadline_scale_refused_test(transfer_cli pkbench_transfer)
  pk_cli_test(transfer_cli_same_gpu_twice pkbench_transfer 2 "--gpus=0,0 names GPU 0 twice" --gpus=0,0)
  pk_cli_test(transfer_cli_unwritable_csv pkbench_transfer 2 "--csv=/nonexistent/dir/x.csv: cannot write"
    --csv=/nonexistent/dir/x.csv)
  pk_cli_test(transfer_cli_knob_value pkbench_transfer 2 "--vecs=3: reg accepts 4, 8, 16" --vecs=3 --list)
  pk_cli_test(transfer_cli_knob_without_mechanism pkbench_transfer 2 "--threads applies to"
    --mechanisms=ce --threads=64)
  pk_cli_test(transfer_cli_bad_size pkbench_transfer 2 "--sizes" --sizes=4Q)
  pk_cli_test(transfer_cli_size_not_16 pkbench_transfer 2 "--sizes: 17 B is not a positive multiple of 16 B" --sizes=17)
  pk_cli_test(transfer_cli_ipc_needs_mpirun pkbench_transfer 2 "needs one process per GPU" --peer-mode=ipc)
  pk_cli_test(transfer_cli_bad_peer_mode pkbench_transfer 2 "--peer-mode" --peer-mode=nvshmem)
  # --list --arch plans for a stand-in GPU of that architecture, whatever this machine has
  # (GPU 1 need not exist here), so the test does not depend on the number of GPUs.
  pk_cli_test(transfer_cli_list pkbench_transfer 0 "transfer/tma_bulk/one_way/push/gpus:0,1"
    --preset=smoke --list --gpus=0,1 --arch=sm_90a)
  # Planned for a node of 4 (--world): the fan-out, fan-in and all-pairs points of every
  # mechanism, and each point's estimate summed on stderr.
  pk_cli_test(transfer_cli_list_node pkbench_transfer 0 "transfer/reg/all_pairs/pull/.*\\[fan\\]"
    --list --arch=sm_90a --world=4)
  pk_cli_test(transfer_cli_list_estimate pkbench_transfer 0 "pkbench_transfer: plan: [0-9]+ points, about [0-9.]+ s"
    --list --arch=sm_90a --world=2)
  pk_cli_test(transfer_cli_virtual_ranks_range pkbench_transfer 2 "--ranks: --peer-mode=virtual needs 2 to 8 ranks"
    --peer-mode=virtual --ranks=9 --list)
  pk_cli_test(transfer_cli_ranks_without_virtual pkbench_transfer 2 "--ranks: only --peer-mode=virtual"
    --ranks=3 --list)
endif()
