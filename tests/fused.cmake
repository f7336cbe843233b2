# Fused study tests (tests/CMakeLists.txt includes every tests/*.cmake).
# CPU (label cpu): pkbench_fused_cpu_tests (tile orders and ownership, shapes and their
# refusals, schedules/knobs/grid, the cost model on tests/fixtures/fused_*.csv) and the
# binaries' argument checks (exit 2, the flag named, also without a GPU).
# GPU (label gpu): pkbench_fused_gpu_tests alone (peer mode single) and under mpirun (ipc, vmm)
# on 2 GPUs and on every GPU of a node of 3 or more; each test skips with the reason without 2
# Hopper GPUs.
if(TARGET pkbench_fused_schema)
  add_executable(pkbench_fused_cpu_tests ${CMAKE_CURRENT_LIST_DIR}/cpu/test_fused.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cpu/test_torch_ref.cpp)
  target_link_libraries(pkbench_fused_cpu_tests PRIVATE pkbench_fused_schema pkbench_torch_ref_core GTest::gtest_main)
  if(TARGET pkbench_fused_model)
    target_link_libraries(pkbench_fused_cpu_tests PRIVATE pkbench_fused_model)
    target_compile_definitions(pkbench_fused_cpu_tests PRIVATE PKBENCH_FUSED_MODEL)
  endif()
  target_compile_definitions(pkbench_fused_cpu_tests PRIVATE PKBENCH_FIXTURE_DIR="${CMAKE_CURRENT_LIST_DIR}/fixtures")
  pk_discover_tests(pkbench_fused_cpu_tests PROPERTIES LABELS cpu)
endif()
# The tuned schedule's answers and refusals, and its summary (the sweeps read the rows).
if(TARGET pkbench_fused_schema AND TARGET pkbench_sweeps)
  add_executable(pkbench_fused_tuned_tests ${CMAKE_CURRENT_LIST_DIR}/cpu/test_fused_tuned.cpp)
  target_link_libraries(pkbench_fused_tuned_tests PRIVATE pkbench_fused_schema pkbench_sweeps GTest::gtest_main)
  target_compile_definitions(pkbench_fused_tuned_tests PRIVATE PKBENCH_FIXTURE_DIR="${CMAKE_CURRENT_LIST_DIR}/fixtures")
  pk_discover_tests(pkbench_fused_tuned_tests PROPERTIES LABELS cpu)
endif()

if(TARGET pkbench_fused_core)
  add_executable(pkbench_fused_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/gpu/gpu_main.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gpu/test_fused_gpu.cu)
  target_link_libraries(pkbench_fused_gpu_tests PRIVATE pkbench_fused_core GTest::gtest)
  pk_discover_tests(pkbench_fused_gpu_tests
    PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_REGULAR_EXPRESSION "SKIPPED" ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;NCCL_NVLS_ENABLE=0")
  pk_virtual_rank_tests(pkbench_fused_gpu_tests)
  pk_mpi_script_test(fused_gpu_tests_ipc_vmm_2_ranks mpi_gpu_tests.sh pkbench_fused_gpu_tests 600)
endif()

set(_fused_expect ${CMAKE_CURRENT_LIST_DIR}/cli/expect_exit.sh)
if(TARGET pkbench_fused)
  set(_fused_bin $<TARGET_FILE:pkbench_fused>)
  add_test(NAME fused_cli_shape_not_whole_tiles COMMAND ${_fused_expect} 2
    "--shapes: gemm_rs 1000x256x64: M=1000 is not a multiple of the tile's 128 rows" ${_fused_bin} --shapes=1000x256x64)
  add_test(NAME fused_cli_size_not_divisible_by_gpus COMMAND ${_fused_expect} 2
    "--sizes: N=4096 is not divisible by the GPU count 3" ${_fused_bin} --list --world=3 --sizes=4096)
  add_test(NAME fused_cli_shards_not_whole_tiles COMMAND ${_fused_expect} 2 "does not split into 2 row shards"
    ${_fused_bin} --list --world=2 --ops=ag_gemm --shapes=384x256x64)
  add_test(NAME fused_cli_knob_out_of_range COMMAND ${_fused_expect} 2 "--comm-sms=0" ${_fused_bin} --comm-sms=0)
  add_test(NAME fused_cli_unknown_schedule COMMAND ${_fused_expect} 2 "warp9" ${_fused_bin} --schedules=warp9)
  add_test(NAME fused_cli_unknown_flag COMMAND ${_fused_expect} 2 "bogus" ${_fused_bin} --bogus=1)
  add_test(NAME fused_cli_list_or_no_gpu COMMAND ${_fused_expect} 0,3 "fused/gemm_rs/intra_sm/|no GPU"
    ${_fused_bin} --list --preset=smoke)
  add_test(NAME fused_cli_multicast_refused COMMAND ${CMAKE_COMMAND} -E env NCCL_NVLS_ENABLE=1
    ${_fused_expect} 2 "NCCL_NVLS_ENABLE=1: NVSwitch multicast is never run" ${_fused_bin} --list)
  # A tuning table that is missing, of another schema version or not the fused one: exit 2
  # before any GPU work (also where there is no GPU).
  add_test(NAME fused_cli_tuning_table_missing COMMAND ${_fused_expect} 2 "--tuning-table=/nonexistent.json: .*cannot read"
    ${_fused_bin} --tuning-table=/nonexistent.json)
  add_test(NAME fused_cli_tuning_table_schema COMMAND ${_fused_expect} 2 "--tuning-table=.*schema_version 2"
    ${_fused_bin} --tuning-table=${CMAKE_CURRENT_LIST_DIR}/fixtures/tuning_schema2.json)
  add_test(NAME fused_cli_tuning_table_not_fused COMMAND ${_fused_expect} 2 "a collectives table, not the fused one"
    ${_fused_bin} --tuning-table=${CMAKE_CURRENT_LIST_DIR}/fixtures/tuning_collectives_v1.json)
  # The GPU-count sweep planned for a node of 4 (--world): one round per count with its estimate,
  # the rounds below the run's at N = 8192 only (the default preset's partial sizes).
  add_test(NAME fused_cli_list_gpu_counts COMMAND ${_fused_expect} 0 "plan: [0-9]+ points, about .*\\(2 GPUs: .* 4 GPUs: "
    ${_fused_bin} --list --arch=sm_90a --world=4 --gpu-counts=all)
  add_test(NAME fused_cli_gpu_counts_above_the_run COMMAND ${_fused_expect} 2 "--gpu-counts=2,3: 3 GPUs, but the run has 2"
    ${_fused_bin} --list --arch=sm_90a --world=2 --gpu-counts=2,3)
  set_tests_properties(fused_cli_list_gpu_counts fused_cli_gpu_counts_above_the_run PROPERTIES LABELS cpu)
  # The GPU-count sweep run and verified on one GPU with 4 and 8 virtual ranks (the smoke
  # preset: N = 2048 rounded to whole tiles at each count).
  foreach(_n 4 8)
    add_test(NAME fused_gpu_virtual_${_n}_gpu_counts COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/gpu_counts_virtual.sh ${_n}
      ${_fused_bin} --preset=smoke --comm-sms=4 --samples=2 --warmup-ms=1 --gap-ms=0 --study-warmup-ms=0)
    set_tests_properties(fused_gpu_virtual_${_n}_gpu_counts PROPERTIES LABELS gpu RESOURCE_LOCK gpu SKIP_RETURN_CODE 3
      TIMEOUT 900 ENVIRONMENT "CUDA_MODULE_LOADING=EAGER;CUDA_DEVICE_MAX_CONNECTIONS=32;NCCL_NVLS_ENABLE=0;NVSHMEM_DISABLE_NVLS=1")
  endforeach()
  set_tests_properties(fused_cli_shape_not_whole_tiles fused_cli_size_not_divisible_by_gpus
    fused_cli_shards_not_whole_tiles fused_cli_knob_out_of_range fused_cli_unknown_schedule fused_cli_unknown_flag
    fused_cli_list_or_no_gpu fused_cli_multicast_refused fused_cli_tuning_table_missing fused_cli_tuning_table_schema
    fused_cli_tuning_table_not_fused PROPERTIES LABELS cpu)
endif()
# The tuned rows' summary, and a virtual-rank fused CSV as a table only the same virtual
# ranks read (pkbench_tune --allow-virtual; refused without it).
if(TARGET pkbench_fused_summary)
  add_test(NAME fused_summary_tuned_section COMMAND ${_fused_expect} 0 "1 of 1 measured points reach the target, worst 0.990"
    $<TARGET_FILE:pkbench_fused_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures/fused_tuned_fixture.csv)
  add_test(NAME fused_tune_virtual_refused COMMAND ${_fused_expect} 2 "never tuning input for a real machine"
    $<TARGET_FILE:pkbench_tune> --out ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_CURRENT_LIST_DIR}/fixtures/fused_tuned_fixture.csv)
  add_test(NAME fused_tune_allow_virtual COMMAND ${_fused_expect} 0 "wrote .*fused_tuning.csv"
    $<TARGET_FILE:pkbench_tune> --allow-virtual --out ${CMAKE_CURRENT_BINARY_DIR}
    ${CMAKE_CURRENT_LIST_DIR}/fixtures/fused_tuned_fixture.csv)
  set_tests_properties(fused_summary_tuned_section fused_tune_virtual_refused fused_tune_allow_virtual PROPERTIES LABELS cpu)
endif()
if(TARGET pkbench_cost_model)
  set(_fx ${CMAKE_CURRENT_LIST_DIR}/fixtures)
  set(_cm $<TARGET_FILE:pkbench_cost_model> --fused ${_fx}/fused_points.csv --transfer ${_fx}/fused_transfer.csv
    --sync ${_fx}/fused_sync.csv --gemm ${_fx}/fused_gemm.csv)
  add_test(NAME fused_cost_model_fixture COMMAND ${_fused_expect} 0 "measured best  16 SMs .* predicted  16 SMs"
    ${_cm} --comm-only ${_fx}/fused_comm_only.csv)
  # T_comm of inter-SM GEMM+RS from the communicator-only rows (16 MiB at 80 GB/s on 8 SMs:
  # 209.7 us), and each way that input is refused: exit 2, the flag named.
  add_test(NAME fused_cost_model_comm_only_rate COMMAND ${_fused_expect} 0
    "inter_sm +8 +170.0 +[0-9.]+ +[-+0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +209.7 "
    ${_cm} --comm-only ${_fx}/fused_comm_only.csv)
  add_test(NAME fused_cost_model_comm_only_required COMMAND ${_fused_expect} 2 "--comm-only is required: .*gemm_rs on 2 GPUs"
    ${_cm})
  add_test(NAME fused_cost_model_comm_only_missing_file COMMAND ${_fused_expect} 2 "--comm-only=/nonexistent.csv: .*cannot open"
    ${_cm} --comm-only /nonexistent.csv)
  add_test(NAME fused_cost_model_comm_only_missing_column COMMAND ${_fused_expect} 2
    "--comm-only=.*fused_comm_only_no_time.csv: .*missing column 'time_us_median'" ${_cm} --comm-only ${_fx}/fused_comm_only_no_time.csv)
  add_test(NAME fused_cost_model_comm_only_missing_rows COMMAND ${_fused_expect} 2
    "--comm-only=.*fused_comm_only_ar_only.csv: no inter_sm row of gemm_rs on 2 GPUs" ${_cm} --comm-only ${_fx}/fused_comm_only_ar_only.csv)
  add_test(NAME fused_cost_model_comm_only_other_commit COMMAND ${_fused_expect} 2
    "--comm-only=.*git_commit \\(abc1234\\) is not" ${_cm} --comm-only ${_fx}/fused_comm_only_other_commit.csv)
  add_test(NAME fused_cost_model_comm_only_mixed_commits_allowed COMMAND ${_fused_expect} 0
    "communicator-only rows' abc1234 \\(different stamps: used with --allow-mixed-commits\\)"
    ${_cm} --comm-only ${_fx}/fused_comm_only_other_commit.csv --allow-mixed-commits)
  # One GPU, one rank (nothing communicated): inter-SM GEMM+RS / GEMM+AR need no --comm-only, as
  # --needs-comm-only says (the model runs without it under --regenerate).
  add_test(NAME fused_cost_model_one_gpu_no_comm_only COMMAND ${_fused_expect} 0 "gemm_ar 4096x4096x2048 w1 +measured best"
    $<TARGET_FILE:pkbench_cost_model> --fused ${_fx}/fused_points_one_gpu.csv --transfer ${_fx}/fused_transfer.csv
    --sync ${_fx}/fused_sync.csv)
  add_test(NAME fused_cost_model_needs_transfer COMMAND ${_fused_expect} 2 "--transfer is required"
    $<TARGET_FILE:pkbench_cost_model> --fused ${_fx}/fused_points.csv --sync ${_fx}/fused_sync.csv)
  add_test(NAME fused_cost_model_mixed_machines COMMAND ${_fused_expect} 2 "different GPUs"
    $<TARGET_FILE:pkbench_cost_model> --fused ${_fx}/fused_points.csv --transfer ${_fx}/fused_transfer.csv
    --sync ${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/old/sync.csv --comm-only ${_fx}/fused_comm_only.csv)
  # A column the fused study never wrote: refused against the study's own declaration.
  add_test(NAME fused_cost_model_foreign_column COMMAND ${_fused_expect} 2 "'bogus_column': not a column of the fused study"
    $<TARGET_FILE:pkbench_cost_model> --fused ${_fx}/fused_points_foreign_column.csv --transfer ${_fx}/fused_transfer.csv
    --sync ${_fx}/fused_sync.csv)
  # --needs-comm-only, the rule run.sh and --regenerate ask: yes (exit 0) for inter-SM GEMM+RS on 2
  # GPUs, no (1) on one GPU, 2 for a CSV it cannot read or beside the model's own flags.
  set(_needs $<TARGET_FILE:pkbench_cost_model> --needs-comm-only)
  add_test(NAME fused_cost_model_needs_comm_only_yes COMMAND ${_fused_expect} 0 "^$" ${_needs} ${_fx}/fused_points.csv)
  add_test(NAME fused_cost_model_needs_comm_only_no COMMAND ${_fused_expect} 1 "^$" ${_needs} ${_fx}/fused_points_one_gpu.csv)
  add_test(NAME fused_cost_model_needs_comm_only_unreadable COMMAND ${_fused_expect} 2 "'bogus_column': not a column"
    ${_needs} ${_fx}/fused_points_foreign_column.csv)
  add_test(NAME fused_cost_model_needs_comm_only_alone COMMAND ${_fused_expect} 2 "--transfer excludes --needs-comm-only"
    ${_needs} ${_fx}/fused_points.csv --transfer ${_fx}/fused_transfer.csv)
  # --regenerate, the fused study's part of scripts/regenerate.sh: the pairing, and a direct run's outputs.
  add_test(NAME fused_cost_model_regenerate COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/cost_model_regenerate.sh
    $<TARGET_FILE:pkbench_cost_model> ${_fx})
  set_tests_properties(fused_cost_model_regenerate PROPERTIES LABELS cpu TIMEOUT 60)
  set_tests_properties(fused_cost_model_needs_comm_only_yes fused_cost_model_needs_comm_only_no
    fused_cost_model_needs_comm_only_unreadable fused_cost_model_needs_comm_only_alone PROPERTIES LABELS cpu)
  set_tests_properties(fused_cost_model_fixture fused_cost_model_needs_transfer fused_cost_model_mixed_machines
    fused_cost_model_foreign_column fused_cost_model_comm_only_rate fused_cost_model_comm_only_required
    fused_cost_model_comm_only_missing_file fused_cost_model_comm_only_missing_column fused_cost_model_comm_only_missing_rows
    fused_cost_model_comm_only_other_commit fused_cost_model_comm_only_mixed_commits_allowed
    fused_cost_model_one_gpu_no_comm_only PROPERTIES LABELS cpu)
endif()
# microbench/fused/comm-trace.py (the communicator's per-phase stamps): medians of a synthetic log, its refusals.
add_test(NAME fused_comm_trace_script COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/comm_trace.sh ${CMAKE_SOURCE_DIR}/microbench/fused/comm-trace.py)
set_tests_properties(fused_comm_trace_script PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 60)

# PyTorch as a reference tool: the driver's control flow on a stand-in for PyTorch (no GPU).
if(TARGET pkbench_torch_ref)
  add_test(NAME fused_ref_torch_driver COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/ref_torch_fake.sh ${CMAKE_SOURCE_DIR}
    $<TARGET_FILE:pkbench_torch_ref>)
  set_tests_properties(fused_ref_torch_driver PROPERTIES LABELS cpu SKIP_RETURN_CODE 77)
  pk_cli_test(fused_torch_ref_cli_help pkbench_torch_ref 0 "^usage: pkbench_torch_ref" --help)
  pk_cli_test(fused_torch_ref_cli_empty_torch pkbench_torch_ref 2 "--torch is empty" --torch= --fused=x.csv)
endif()
