# Sweep-driver tests (tests/CMakeLists.txt includes every tests/*.cmake whose name is in
# PKBENCH_STUDIES, or all of them): the reader, tuning tables, comparison and report on
# fixtures (copies of committed results where real data matters: tests/fixtures/compare/); the generated tuning header compiled by a small
# C++17 program; the scripts' plans and refusals. All CPU (label cpu).
if(NOT TARGET pkbench_sweeps)
  return()
endif()
target_sources(pkbench_cpu_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sweeps_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sweeps_tuning.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sweeps_compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sweeps_verdict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpu/test_sweeps_report.cpp)

set(_pk_cli ${CMAKE_CURRENT_LIST_DIR}/cli)
add_test(NAME sweeps_tuning_header COMMAND ${_pk_cli}/tuning_header.sh $<TARGET_FILE:pkbench_tune>
  ${CMAKE_CXX_COMPILER} ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/tuning_header)
add_test(NAME sweeps_compare_usage COMMAND ${_pk_cli}/expect_exit.sh 2 "is not a folder"
  $<TARGET_FILE:pkbench_compare> /nonexistent ${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/single)
add_test(NAME sweeps_compare_peer_modes COMMAND ${_pk_cli}/expect_exit.sh 0 "ce_batch/pull/bidir \\| 15 "
  $<TARGET_FILE:pkbench_compare> ${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/single
  ${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/ipc)
add_test(NAME sweeps_tune_refuses_sync_csv COMMAND ${_pk_cli}/expect_exit.sh 2 "is a sync CSV"
  $<TARGET_FILE:pkbench_tune> --out ${CMAKE_CURRENT_BINARY_DIR} ${CMAKE_CURRENT_LIST_DIR}/fixtures/sync_fixture.csv)
add_test(NAME sweeps_tune_all_or_nothing COMMAND ${_pk_cli}/tune_all_or_nothing.sh $<TARGET_FILE:pkbench_tune>
  ${CMAKE_CURRENT_LIST_DIR}/fixtures)
add_test(NAME sweeps_peer_modes_unknown_mode COMMAND ${_pk_cli}/expect_exit.sh 2 "unknown peer mode 'foo'"
  $<TARGET_FILE:pkbench_peer_modes> ${CMAKE_CURRENT_BINARY_DIR}/peer_modes_unknown.md
  foo=${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/single single=${CMAKE_CURRENT_LIST_DIR}/fixtures/compare/ipc)
add_test(NAME sweeps_summary_bad_elapsed COMMAND ${_pk_cli}/expect_exit.sh 2 "ELAPSED_SECONDS 'soon'"
  $<TARGET_FILE:pkbench_transfer_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures/transfer_fixture.csv
  ${CMAKE_CURRENT_BINARY_DIR} soon)
add_test(NAME sweeps_summary_foreign_csv COMMAND ${_pk_cli}/expect_exit.sh 2 "sync_fixture.csv:2:1: column 'study'"
  $<TARGET_FILE:pkbench_transfer_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures/sync_fixture.csv ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME sweeps_report_usage COMMAND ${_pk_cli}/expect_exit.sh 2 "--other=/nonexistent: not a folder"
  $<TARGET_FILE:pkbench_report> ${CMAKE_CURRENT_LIST_DIR}/fixtures/report --other=/nonexistent)
add_test(NAME sweeps_reproduce_plan COMMAND ${_pk_cli}/reproduce_plan.sh ${CMAKE_SOURCE_DIR})
add_test(NAME sweeps_deps_plan COMMAND ${_pk_cli}/deps_plan.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(sweeps_tuning_header sweeps_compare_usage sweeps_compare_peer_modes sweeps_tune_refuses_sync_csv
  sweeps_tune_all_or_nothing sweeps_peer_modes_unknown_mode
  sweeps_summary_bad_elapsed sweeps_summary_foreign_csv sweeps_report_usage sweeps_reproduce_plan sweeps_deps_plan
  PROPERTIES LABELS cpu)
# run.sh refuses bad arguments before it looks for a GPU or builds anything.
add_test(NAME sweeps_run_quick_takes_no_arguments COMMAND ${_pk_cli}/expect_exit.sh 2 "--quick takes no other arguments"
  ${CMAKE_SOURCE_DIR}/scripts/run.sh --quick transfer)
add_test(NAME sweeps_run_quick_list_refused COMMAND ${_pk_cli}/expect_exit.sh 2 "--quick --list: --list plans the full studies"
  ${CMAKE_SOURCE_DIR}/scripts/run.sh --quick --list)
set_tests_properties(sweeps_run_quick_list_refused PROPERTIES LABELS cpu)
add_test(NAME sweeps_run_unknown_study COMMAND ${_pk_cli}/expect_exit.sh 2 "unknown study 'warp_drive'"
  ${CMAKE_SOURCE_DIR}/scripts/run.sh warp_drive)
add_test(NAME sweeps_merge_refuses_two_studies COMMAND ${_pk_cli}/expect_exit.sh 2 "header differs|a sync CSV"
  $<TARGET_FILE:pkbench_merge> ${CMAKE_CURRENT_BINARY_DIR}/merged.csv ${CMAKE_CURRENT_LIST_DIR}/fixtures/transfer_fixture.csv
  ${CMAKE_CURRENT_LIST_DIR}/fixtures/sync_fixture.csv)
# The collectives summary: a missing CSV refused (exit 2, named); on the verdict fixture, the
# nine targets with the baseline off its tool called so.
add_test(NAME sweeps_collectives_summary_missing_csv COMMAND ${_pk_cli}/expect_exit.sh 2 "CSV '/nonexistent.csv': no such file"
  $<TARGET_FILE:pkbench_collectives_summary> /nonexistent.csv)
add_test(NAME sweeps_collectives_summary_fixture COMMAND ${_pk_cli}/expect_exit.sh 0
  "9 targets: 2 met, 3 missed, 1 tied .within noise., 1 with a baseline off its tool .no speedup claimed., 2 not measured"
  $<TARGET_FILE:pkbench_collectives_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures/report/collectives.csv)
add_test(NAME sweeps_collectives_summary_defects COMMAND ${_pk_cli}/expect_exit.sh 0
  "7 checked .within 5 % of the tool's figure in the same call., 4 not checked, 1 off their tool. These are measurement defects"
  $<TARGET_FILE:pkbench_collectives_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures/report/collectives.csv)
set_tests_properties(sweeps_collectives_summary_missing_csv sweeps_collectives_summary_fixture
  sweeps_collectives_summary_defects PROPERTIES LABELS cpu)
set_tests_properties(sweeps_run_quick_takes_no_arguments sweeps_run_unknown_study sweeps_merge_refuses_two_studies
  PROPERTIES LABELS cpu)
# The regeneration test, one per committed machine folder: every summary, tuning table, figure
# and REPORT.md regenerates byte for byte from the committed CSVs (scripts/regenerate.sh on a
# copy). By design the one test that reads the live results/.
file(GLOB _pk_machines LIST_DIRECTORIES true RELATIVE ${CMAKE_SOURCE_DIR}/results ${CMAKE_SOURCE_DIR}/results/*)
foreach(_m IN LISTS _pk_machines)
  if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/results/${_m})
    add_test(NAME results_regenerate_${_m} COMMAND ${_pk_cli}/regenerate_results.sh ${CMAKE_SOURCE_DIR}
      ${CMAKE_BINARY_DIR} ${_m})
    set_tests_properties(results_regenerate_${_m} PROPERTIES LABELS cpu)
  endif()
endforeach()
# Every scripts/run.sh, scripts/reproduce.sh and study-binary example of README.md and docs/ accepted as
# written (with --list: no GPU needed).
add_test(NAME readme_commands COMMAND ${_pk_cli}/readme_commands.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(readme_commands PROPERTIES LABELS cpu)
# run.sh --as refuses the main run's own names (its wall time is read by them) and absolute
# paths, before anything runs.
add_test(NAME sweeps_run_as_main_name COMMAND ${_pk_cli}/expect_exit.sh 2 "the name of the study's main run"
  ${CMAKE_SOURCE_DIR}/scripts/run.sh transfer --as=transfer.extra)
add_test(NAME sweeps_run_as_absolute COMMAND ${_pk_cli}/expect_exit.sh 2 "a relative name"
  ${CMAKE_SOURCE_DIR}/scripts/run.sh sync --as=/tmp/x)
set_tests_properties(sweeps_run_as_main_name sweeps_run_as_absolute PROPERTIES LABELS cpu)
# run.sh fused without a GPU (stand-ins for nvidia-smi, cmake and the tools): the communicator-only
# rows measured beside fused.csv and passed to the cost model as --comm-only.
add_test(NAME sweeps_run_sh_fused_comm_only COMMAND ${_pk_cli}/run_sh_fused_comm_only.sh ${CMAKE_SOURCE_DIR}
  $<TARGET_FILE:pkbench_cost_model>)
set_tests_properties(sweeps_run_sh_fused_comm_only PROPERTIES LABELS cpu TIMEOUT 60)
# The main job's plan on 4 and 8 GPUs (run.sh --list --gpus=N): every study, its estimate.
add_test(NAME sweeps_run_sh_list COMMAND ${_pk_cli}/run_sh_list.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(sweeps_run_sh_list PROPERTIES LABELS cpu TIMEOUT 300 SKIP_RETURN_CODE 3)
