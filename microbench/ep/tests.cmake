# Expert-parallel study tests (tests/CMakeLists.txt includes this file when the study is
# configured). CPU (label cpu): pkbench_ep_cpu_tests (test_ep_cpu.cpp) and
# the binaries' refusals (exit 2, the flag named, also without a GPU). GPU (label gpu):
# pkbench_ep_gpu_tests (test_ep_gpu.cu) alone (one process: 2 GPUs, and virtual ranks on one,
# run again at 3, 4 and 8 ranks) and under mpirun -np 2 (ipc, vmm).
if(TARGET pkbench_ep_analysis)
  pk_study_cpu_tests(ep pkbench_ep_analysis)
endif()

if(TARGET pkbench_ep_core)
  pk_study_gpu_tests(pkbench_ep_gpu_tests SOURCES ${CMAKE_SOURCE_DIR}/microbench/ep/test_ep_gpu.cu LIBS pkbench_ep_core)
  pk_mpi_script_test(ep_gpu_tests_ipc_vmm_2_ranks mpi_gpu_tests.sh pkbench_ep_gpu_tests 600)
endif()

if(TARGET pkbench_ep)
  pk_cli_test(ep_cli_bad_hidden pkbench_ep 2 "--hidden=7170" --hidden=7170)
  pk_cli_test(ep_cli_bad_topk pkbench_ep 2 "--topk=9" --topk=9)
  pk_cli_test(ep_cli_bad_tokens pkbench_ep 2 "--tokens" --tokens=0)
  pk_cli_test(ep_cli_bad_sms pkbench_ep 2 "--sms: 0" --sms=0)
  pk_cli_test(ep_cli_unknown_impl pkbench_ep 2 "unknown implementation .*'ring'" --impls=ring)
  pk_cli_test(ep_cli_unknown_routing pkbench_ep 2 "unknown routing .*'lumpy'" --routings=lumpy)
  pk_cli_test(ep_cli_unknown_preset pkbench_ep 2 "--preset: unknown preset" --preset=huge)
  pk_cli_test(ep_cli_experts_over_ranks pkbench_ep 2 "--experts=255" --experts=255 --world=2)
  pk_cli_test(ep_cli_no_point pkbench_ep 2 "no point left" --impls=ll --tokens=4096)
  pk_cli_test(ep_cli_list_or_no_gpu pkbench_ep 0,3 "ep/dispatch_combine/ht.sms=8./uniform/T128|no GPU" --list --world=4)
  pk_cli_test(ep_cli_list_every_preset pkbench_ep 0,3 "ep/dispatch_gemm/overlap.sms=8./no_recv/T131|no GPU" --list --preset=edge)
  set_tests_properties(ep_cli_list_or_no_gpu ep_cli_list_every_preset PROPERTIES SKIP_RETURN_CODE 3)
  pk_multicast_refused_tests(ep_cli pkbench_ep)
endif()
if(TARGET pkbench_ep_summary)
  pk_summary_cli_tests(ep "EP_CSV and OUT_DIR")
  pk_cli_test(ep_ref_usage pkbench_ep_ref 2 "--intranode or --low-latency" x.csv --ranks 4)
endif()
