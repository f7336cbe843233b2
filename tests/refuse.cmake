# Bad input refused first, hostile CSVs, capability gating (issue 18). All CPU (label cpu):
# every case runs on a machine without a GPU, where the checks must come before the GPU is
# looked for (exit 2 with the flag named, never 3).
set(_pk_cli ${CMAKE_CURRENT_LIST_DIR}/cli)
# What a B200 gets depends on whether this build has its device code (PKBENCH_CUDA_ARCHS).
if("100a" IN_LIST CMAKE_CUDA_ARCHITECTURES OR "100a-real" IN_LIST CMAKE_CUDA_ARCHITECTURES)
  set(_pk_sm100_built TRUE)
else()
  set(_pk_sm100_built FALSE)
endif()

# Capability gating on a fake device of each architecture (sm_80, sm_90a, sm_100a).
target_sources(pkbench_cpu_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpu/test_capability.cpp)

# Each case "NAME|REGEX|ARG|ARG...": the study binary with those arguments exits 2 and prints
# REGEX (test refuse_<study>_<NAME>).
function(pk_refuse_cases study target)
  foreach(_case ${ARGN})
    string(REPLACE "|" ";" _f "${_case}")
    list(GET _f 0 _name)
    list(GET _f 1 _re)
    list(SUBLIST _f 2 -1 _args)
    pk_cli_test(refuse_${study}_${_name} ${target} 2 "${_re}" ${_args})
  endforeach()
endfunction()

# A grid check that needs no GPU, refused here even without --list.
if(TARGET pkbench_transfer)
  pk_refuse_cases(transfer pkbench_transfer
      "vecs|--vecs=3: reg accepts 4, 8, 16|--vecs=3"
      "unrolls|--unrolls=3: reg accepts 1, 2, 4, 8|--unrolls=3"
      "threads_33|--threads must be a multiple of 32|--threads=33"
      "depths_999|--depths: pipeline depth must be in 1..64|--depths=999"
      "size_beyond_total|message size 2GiB is larger than the total 1GiB|--sizes=2G"
      "sms_beyond_any_gpu|--sms=9999 but the largest supported GPU has|--sms=9999"
      "sms_0|--sms=0: SMs per issuing GPU.* must be at least 1|--sms=0"
      "threads_0|--threads=0: threads per block must be at least 1|--threads=0"
      "depths_0|--depths=0: TMA pipeline stages.* must be at least 1|--depths=0"
      "blocks_per_sm_0|--blocks-per-sm=0: blocks pinned per SM must be at least 1|--blocks-per-sm=0"
      "gpu_counts_0|--gpu-counts=0: 0 GPUs: a fan pattern needs 2 to 64 GPUs|--gpu-counts=0"
      "gpu_counts_99|--gpu-counts=99: 99 GPUs|--gpu-counts=99"
      "total_0|--total=0: an operation must move at least 16 B|--total=0"
      "warmup_nan|--warmup-ms=nan: not a finite number|--warmup-ms=nan"
      "timeout_nan|--timeout-ms=NaN: not a finite number|--timeout-ms=NaN"
      "target_sample_nan|--target-sample-ms=-nan: not a finite number|--target-sample-ms=-nan"
      "timeout_inf|--timeout-ms|--timeout-ms=inf"
      "csv_folder|--csv=/tmp: is a folder|--csv=/tmp"
      "arch_without_list|--arch=sm_100a plans a --list for another GPU: add --list|--arch=sm_100a"
      "arch_unknown|--arch=sm_99: unknown architecture|--list|--arch=sm_99")

  # --arch plans for a stand-in GPU on any machine, and says what would be skipped and why.
  pk_cli_test(refuse_transfer_list_sm80 pkbench_transfer 0
    "tma_bulk/one_way/push.* skipped: this build has no device code for sm_80"
    --list --arch=sm_80 --preset=smoke)
  # All of a B200's 148 SMs; TMA runs there (a line without a skip reason) when 100a is built.
  if(_pk_sm100_built)
    set(_re "tma_bulk/one_way/push/.*/sms:148/.*\\[fig2\\]$")
  else()
    set(_re "tma_bulk/one_way/push/.*/sms:148/.* skipped: this build has no device code for sm_100")
  endif()
  pk_cli_test(refuse_transfer_list_sm100 pkbench_transfer 0 "${_re}" --list --arch=sm_100a --preset=fig2 --mechanisms=tma_bulk)
endif()

if(TARGET pkbench_collectives)
  pk_refuse_cases(collectives pkbench_collectives
      "sizes_0|--sizes: 0: a collective needs at least one element per rank|--sizes=0"
      "counts_0|--counts: 0: a collective needs at least one element per rank|--counts=0"
      "tensor_cols_0|--tensor-cols=0: the \\*_cols layouts need at least one column per rank|--tensor-cols=0"
      "a2a_shape_0|--a2a-shape=0,0,0: B, H and D are positive integers|--a2a-shape=0,0,0"
      "a2a_shape_negative|--a2a-shape=-1,2,3: B, H and D are positive integers|--a2a-shape=-1,2,3"
      "seed_negative|--seed|--seed=-1"
      "warmup_nan|--warmup-ms=nan: not a finite number|--warmup-ms=nan"
      "multimem_without_consent|--impls=multimem: the NVSwitch multicast variant is refused by policy unless --allow-multicast|--impls=multimem"
      "csv_folder|--csv=/tmp: is a folder|--csv=/tmp")

  # Built with NVSHMEM (CI installs the wheel): listed; without: refused with the reason.
  pk_cli_test(refuse_collectives_nvshmem pkbench_collectives 0,2
    "(/nvshmem/|--impls=nvshmem: this build has no NVSHMEM)" --impls=nvshmem --list --collectives=all_reduce)
  pk_cli_test(refuse_collectives_list_no_gpu pkbench_collectives 0 "all_reduce/" --list --collectives=all_reduce)
  pk_cli_test(refuse_collectives_list_sm80 pkbench_collectives 0 "skipped: this build has no device code for sm_80"
    --list --arch=sm_80 --collectives=all_reduce)
endif()

if(TARGET pkbench_gemm)
  pk_cli_test(refuse_gemm_sms_beyond_any_gpu pkbench_gemm 2 "--sms: 9999 SMs: no supported GPU has more than" --sms=9999)
  pk_cli_test(refuse_gemm_bad_preset pkbench_gemm 2 "--preset: unknown preset 'bogus' \\(default, small, model\\)" --preset=bogus)
  pk_cli_test(refuse_gemm_list_no_gpu pkbench_gemm 0 "pkbench" --list)
  # This suite's GEMM is wgmma: skipped on a B200, cuBLASLt runs there (when 100a is built).
  if(_pk_sm100_built)
    pk_cli_test(refuse_gemm_list_sm100 pkbench_gemm 0 "pkbench.* skipped: wgmma needs sm_90a \\(sm_100 has 10.0\\)"
      --list --arch=sm_100a)
    pk_cli_test(refuse_gemm_list_sm100_cublas pkbench_gemm 0 "cublaslt/8192x8192x8192/sms:148$" --list --arch=sm_100a)
  else()
    pk_cli_test(refuse_gemm_list_sm100 pkbench_gemm 0 "pkbench.* skipped: this build has no device code for sm_100"
      --list --arch=sm_100a)
  endif()
  pk_cli_test(refuse_gemm_list_sm90 pkbench_gemm 0 "cublaslt" --list --arch=sm_90a)
endif()

if(TARGET pkbench_sync)
  pk_cli_test(refuse_sync_timeout_nan pkbench_sync 2 "--timeout-ms=nan: not a finite number" --timeout-ms=nan)
endif()
if(TARGET pkbench_fused)
  # The fused kernels are this suite's wgmma GEMM: nothing of them runs on a B200.
  pk_cli_test(refuse_fused_list_sm100 pkbench_fused 0
    "fused/.* skipped: (wgmma needs sm_90a|this build has no device code for sm_100)" --list --arch=sm_100a)
endif()
foreach(_study sync fused primitives)
  if(TARGET pkbench_${_study})
    pk_cli_test(refuse_${_study}_list_sm80 pkbench_${_study} 0
      "${_study}/.* skipped: this build has no device code for sm_80" --list --arch=sm_80)
  endif()
endforeach()

# The sweep tools on hostile CSVs, their output folders, their --help.
if(TARGET pkbench_sweeps)
  # Every executable sweeps/CMakeLists.txt defines answers --help.
  get_property(_pk_sweeps_targets DIRECTORY ${CMAKE_SOURCE_DIR}/sweeps PROPERTY BUILDSYSTEM_TARGETS)
  set(_pk_sweeps_tools "")
  foreach(_t ${_pk_sweeps_targets})
    get_target_property(_type ${_t} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      list(APPEND _pk_sweeps_tools $<TARGET_FILE:${_t}>)
    endif()
  endforeach()
  add_test(NAME refuse_sweeps_hostile_csv COMMAND ${_pk_cli}/hostile_csv.sh
    $<TARGET_FILE_DIR:pkbench_transfer_summary> ${CMAKE_CURRENT_LIST_DIR}/fixtures ${_pk_sweeps_tools})
  set_tests_properties(refuse_sweeps_hostile_csv PROPERTIES LABELS cpu TIMEOUT 120)
  # Fuzz: a thousand generated CSVs through every reader and the report (3000 took 87 s on a
  # loaded 2-core machine and ran past CI's limit); a hang still meets the timeout.
  add_executable(pkbench_fuzz_sweeps ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_sweeps.cpp)
  target_link_libraries(pkbench_fuzz_sweeps PRIVATE pkbench_sweeps)
  add_test(NAME refuse_sweeps_fuzz COMMAND pkbench_fuzz_sweeps ${CMAKE_CURRENT_LIST_DIR}/fixtures 1000 1)
  set_tests_properties(refuse_sweeps_fuzz PROPERTIES LABELS cpu TIMEOUT 240)
endif()

# The top-level script answers --help before it looks for anything (exit 0).
add_test(NAME refuse_run_sh_help COMMAND ${_pk_cli}/expect_exit.sh 0 "scripts/run.sh --quick" ${CMAKE_SOURCE_DIR}/scripts/run.sh --help)
set_tests_properties(refuse_run_sh_help PROPERTIES LABELS cpu TIMEOUT 30)
# Every script in scripts/ answers --help (usage naming it, exit 0) before it looks at or
# changes anything.
add_test(NAME refuse_scripts_help COMMAND ${_pk_cli}/scripts_help.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(refuse_scripts_help PROPERTIES LABELS cpu TIMEOUT 300)

# Issue 28's bad inputs, each refused first (exit 2, the flag named), without a GPU as with one:
# the checks run before the GPU is looked for.
if(TARGET pkbench_transfer)
  pk_refuse_cases(transfer pkbench_transfer
      "max_ops_negative|--max-ops: -1: a count of messages, 0 or more|--max-ops=-1"
      "ranks_0_virtual|--ranks: --peer-mode=virtual needs 2 to 8 ranks, got 0|--peer-mode=virtual|--ranks=0"
      "ranks_without_virtual|--ranks: only --peer-mode=virtual takes a rank count \\(--ranks=4|--ranks=4"
      "csv_newline|--csv: the path holds a control character|--csv=a\nb.csv"
      "benchmark_out_unwritable|--benchmark_out=/nonexist/x.json: cannot write there|--benchmark_out=/nonexist/x.json")
  # (Not in the list above: CMake's lists nest square brackets.)
  pk_cli_test(refuse_transfer_benchmark_filter_bad_regex pkbench_transfer 2
    "--benchmark_filter=.: not a valid regular expression" "--benchmark_filter=[")
endif()
if(TARGET pkbench_collectives)
  pk_refuse_cases(collectives pkbench_collectives
      "ranks_0_virtual|--ranks: --peer-mode=virtual needs 2 to 8 ranks, got 0|--peer-mode=virtual|--ranks=0"
      "collectives_twice|--collectives: 'all_reduce' is listed twice|--collectives=all_reduce,all_reduce"
      "impls_twice|--impls: 'one_shot' is listed twice|--impls=one_shot,one_shot"
      "sizes_3|--sizes: 3 B does not split into whole bf16 elements|--sizes=3|--dtypes=bf16"
      "csv_newline|--csv: the path holds a control character|--csv=a\nb.csv"
      "benchmark_out_unwritable|--benchmark_out=/nonexist/x.json: cannot write there|--benchmark_out=/nonexist/x.json"
      "world_not_virtual_ranks|--world=2 but --peer-mode=virtual runs 4 ranks|--list|--peer-mode=virtual|--ranks=4|--world=2")
  pk_cli_test(refuse_collectives_benchmark_filter_bad_regex pkbench_collectives 2
    "--benchmark_filter=.: not a valid regular expression" "--benchmark_filter=[")
  # --list of virtual ranks plans for as many GPUs as ranks (3, 4, 8), not the default 2.
  foreach(_n 3 4 8)
    pk_cli_test(refuse_collectives_list_virtual_${_n} pkbench_collectives 0 "planned for ${_n} GPUs"
      --list --peer-mode=virtual --ranks=${_n} --collectives=all_reduce --impls=one_shot --sizes=64K --dtypes=bf16 --modes=eager)
  endforeach()
endif()
if(TARGET pkbench_primitives)
  pk_refuse_cases(primitives pkbench_primitives
      "ranks_0_virtual|--ranks: --peer-mode=virtual needs 2 to 8 ranks, got 0|--peer-mode=virtual|--ranks=0")
endif()
if(TARGET pkbench_fused)
  pk_refuse_cases(fused pkbench_fused
      "ranks_0_virtual|--ranks: --peer-mode=virtual needs 2 to 8 ranks, got 0|--peer-mode=virtual|--ranks=0")
  # (3 ranks: the default sizes do not divide by 3, refused as for --world=3.)
  foreach(_n 4 8)
    pk_cli_test(refuse_fused_list_virtual_${_n} pkbench_fused 0 "points planned for ${_n} GPUs" --list --peer-mode=virtual --ranks=${_n})
  endforeach()
endif()
# scripts/run.sh: an unknown peer mode and a study's bad flags refused before the GPU check.
if(TARGET pkbench_transfer AND TARGET pkbench_collectives)
  add_test(NAME refuse_run_sh_flags COMMAND ${_pk_cli}/run_sh_refuse.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(refuse_run_sh_flags PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
# scripts/harness-cost.sh: bad input refused first, --list without a GPU, and the table
# pkbench_report --harness-cost prints.
add_test(NAME refuse_harness_cost COMMAND ${_pk_cli}/harness_cost.sh ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(refuse_harness_cost PROPERTIES LABELS cpu TIMEOUT 120)
# A hostile --tuning-table: exit 2 naming the flag, never a crash.
set(_pk_tuned_bins "")
foreach(_t pkbench_collectives pkbench_fused)
  if(TARGET ${_t})
    list(APPEND _pk_tuned_bins $<TARGET_FILE:${_t}>)
  endif()
endforeach()
if(_pk_tuned_bins)
  add_test(NAME refuse_tuning_table_hostile COMMAND ${_pk_cli}/tuning_table_hostile.sh
    ${CMAKE_CURRENT_BINARY_DIR}/tuning_table_hostile ${_pk_tuned_bins})
  set_tests_properties(refuse_tuning_table_hostile PROPERTIES LABELS cpu)
endif()
add_test(NAME sanitize_summary COMMAND ${_pk_cli}/sanitize_summary.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(sanitize_summary PROPERTIES LABELS cpu TIMEOUT 60)
