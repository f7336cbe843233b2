# Sequence-parallel study tests (tests/CMakeLists.txt includes this file when the study is
# configured). CPU (label cpu): pkbench_seqpar_cpu_tests, the binaries'
# refusals (exit 2, the flag named, also without a GPU), the collectives' ulysses presets
# planned (--list) and refused where the heads do not split. GPU (label gpu): the ring's
# pkbench_seqpar_gpu_tests and the Ulysses collectives' pkbench_seqpar_ulysses_gpu_tests, each
# alone (one process: 2 GPUs, and virtual ranks on one, run again at 3, 4 and 8 ranks).
if(TARGET pkbench_seqpar_analysis AND TARGET pkbench_coll_problem)
  pk_study_cpu_tests(seqpar pkbench_seqpar_analysis pkbench_coll_problem)
endif()

# The ring (ring.cu) and the Ulysses collectives (the collectives study's core) in two binaries:
# the ring's builds without the collectives' kernels.
if(TARGET pkbench_seqpar_core)
  pk_study_gpu_tests(pkbench_seqpar_gpu_tests SOURCES ${CMAKE_SOURCE_DIR}/microbench/seqpar/test_ring_gpu.cu LIBS pkbench_seqpar_core)
endif()
if(TARGET pkbench_coll_core)
  pk_study_gpu_tests(pkbench_seqpar_ulysses_gpu_tests SOURCES ${CMAKE_SOURCE_DIR}/microbench/seqpar/test_ulysses_gpu.cu
    LIBS pkbench_coll_core)
endif()
if(TARGET pkbench_seqpar_gpu_tests)
  pk_mpi_script_test(seqpar_gpu_tests_ipc_vmm_2_ranks mpi_gpu_tests.sh pkbench_seqpar_gpu_tests 600)
endif()

if(TARGET pkbench_collectives)
  # The Ulysses sweep (S per rank 1K..128K at B,H,D = 1,128,128: 32 MiB to 4 GiB), planned for 4
  # GPUs at 2 and 4: every size of the three collectives in both modes, each round.
  add_test(NAME seqpar_cli_ulysses_plan COMMAND bash -c [=[
      plan=$("$0" --list --arch=sm_90a --world=4 --gpu-counts=2,4 --preset=ulysses --impls=push,nccl 2>/dev/null) ||
        { echo "$plan"; exit 1; }
      echo "$plan" | awk '/^# [0-9]+ GPUs/ { r = $2; next } /\// { n[r "/" $0 ~ /^all_to_all_4d\// ? "a2a" : "cols"]++;
          if ($0 ~ /^all_to_all_4d\/push\/bf16\/4294967296\/graph/) top[r]++; if ($0 ~ /^all_to_all_4d\/push\/bf16\/33554432\/eager/) low[r]++ }
        END { if (!top[2] || !top[4] || !low[2] || !low[4]) { print "sizes missing"; exit 1 } }' && echo "ulysses planned"
      ]=] $<TARGET_FILE:pkbench_collectives>)
  add_test(NAME seqpar_cli_ulysses_layer_plan COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/expect_exit.sh 0
    "all_to_all_4d/push/bf16/4294967296/eager"
    $<TARGET_FILE:pkbench_collectives> --list --arch=sm_90a --world=8 --preset=ulysses_layer)
  # H = 128 does not split over 3 ranks: the all-to-all alone is refused before anything runs, the
  # flag named; beside the column collectives it sits the round out.
  add_test(NAME seqpar_cli_ulysses_heads_refused COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/expect_exit.sh 2
    "--a2a-shape: 128 heads do not split over 3 ranks"
    $<TARGET_FILE:pkbench_collectives> --list --arch=sm_90a --world=3 --preset=ulysses --collectives=all_to_all_4d)
  add_test(NAME seqpar_cli_ulysses_every_count COMMAND bash -c [=[
      plan=$("$0" --list --arch=sm_90a --world=4 --gpu-counts=all --preset=ulysses 2>&1) || { echo "$plan"; exit 1; }
      echo "$plan" | awk '/^# [0-9]+ GPUs/ { r = $2; next } /^all_to_all_4d\// { a[r]++ } /^all_gather_cols\// { g[r]++ }
        END { if (!a[2] || a[3] || !a[4] || !g[2] || !g[3] || !g[4]) { print "rounds wrong"; exit 1 } }' &&
        echo "$plan" | grep -q "all_to_all_4d is not run on 3 GPUs" && echo "ulysses at every count"
      ]=] $<TARGET_FILE:pkbench_collectives>)
  # The flag wins over the preset's shape.
  add_test(NAME seqpar_cli_ulysses_shape_flag COMMAND ${CMAKE_SOURCE_DIR}/tests/cli/expect_exit.sh 0
    "all_to_all_4d/push/bf16/100663296/eager"
    $<TARGET_FILE:pkbench_collectives> --list --arch=sm_90a --world=3 --preset=ulysses --a2a-shape=1,96,128 --tensor-sizes=96M)
  set_tests_properties(seqpar_cli_ulysses_plan seqpar_cli_ulysses_layer_plan seqpar_cli_ulysses_heads_refused seqpar_cli_ulysses_every_count
    seqpar_cli_ulysses_shape_flag PROPERTIES LABELS cpu)
endif()

if(TARGET pkbench_seqpar)
  pk_cli_test(seqpar_cli_bad_seq pkbench_seqpar 2 "--seqs: 300" --seqs=300)
  pk_cli_test(seqpar_cli_bad_head_dim pkbench_seqpar 2 "--head-dim=96" --head-dim=96)
  pk_cli_test(seqpar_cli_bad_sms pkbench_seqpar 2 "--sms: 0" --sms=0)
  pk_cli_test(seqpar_cli_unknown_impl pkbench_seqpar 2 "unknown implementation .*'ring'" --impls=ring)
  pk_cli_test(seqpar_cli_unknown_preset pkbench_seqpar 2 "--preset: unknown preset" --preset=huge)
  pk_cli_test(seqpar_cli_world_too_large pkbench_seqpar 2 "--world" --list --arch=sm_90a --world=9)
  pk_cli_test(seqpar_cli_list_or_no_gpu pkbench_seqpar 0,3 "seqpar/ring_kv/inter_sm.sms=16./H16/S1024|no GPU" --list --world=4)
  pk_cli_test(seqpar_cli_list_gpu_counts pkbench_seqpar 0 "plan: [0-9]+ points.*2 GPUs: .* 8 GPUs: "
    --list --arch=sm_90a --world=8 --gpu-counts=all --preset=smoke)
  set_tests_properties(seqpar_cli_list_or_no_gpu PROPERTIES SKIP_RETURN_CODE 3)
  pk_multicast_refused_tests(seqpar_cli pkbench_seqpar)
endif()
if(TARGET pkbench_seqpar_summary)
  pk_summary_cli_tests(seqpar "SEQPAR_CSV and OUT_DIR")
  pk_cli_test(seqpar_summary_unknown_option pkbench_seqpar_summary 2 "unknown option '--bogus'" --bogus)
endif()
# The Ulysses runs scripts/run.sh makes for the study (study.sh): none on one GPU, the layer shape
# at the counts dividing H = 128, and every flag one pkbench_collectives takes (--list planned).
add_test(NAME seqpar_cli_ulysses_runs COMMAND bash -c [=[
    source "$0/scripts/lib.sh" || exit 1
    [ -z "$(pk_seqpar_ulysses_runs 1)" ] || { echo "runs on one GPU"; exit 1; }
    pk_seqpar_ulysses_runs 6 | grep -q "^ulysses_layer .*--gpu-counts=2,4$" || { echo "layer counts on 6"; exit 1; }
    pk_seqpar_ulysses_runs 8 | grep -q "^ulysses --preset=ulysses .*--gpu-counts=all$" || { echo "ulysses on 8"; exit 1; }
    [ -x "$1" ] || { echo "pkbench_collectives not built: flags not planned"; exit 0; }
    pk_seqpar_ulysses_runs 8 | while read -r name flags; do
      "$1" --list --arch=sm_90a --world=8 $flags > /dev/null 2>&1 || { echo "$name: $flags refused"; exit 1; }
    done && echo "ulysses runs as planned"
    ]=] ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/bin/pkbench_collectives)
set_tests_properties(seqpar_cli_ulysses_runs PROPERTIES LABELS cpu)
# A ring CSV measured on one H200 with 2 virtual ranks (--preset=smoke): the summary and the
# figures from it.
if(TARGET pkbench_seqpar_summary)
  add_test(NAME seqpar_summary_fixture COMMAND bash -c [=[
      out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
      "$0" "$1" "$out" > /dev/null || exit 1
      [ ! -e "$out/seqpar_tuning.csv" ] || { echo "a tuning table from virtual ranks"; exit 1; }
      grep -q "^| 2 | 16 | 1024 | " "$out/seqpar_summary.md" && grep -q "^| ring_hides_transfer | .* | met |" "$out/seqpar_summary.md" || exit 1
      "$0" "$1" "$out" --allow-virtual > /dev/null && grep -q "^2,16,1024," "$out/seqpar_tuning.csv" && echo "summary of the fixture"
      ]=] $<TARGET_FILE:pkbench_seqpar_summary> ${CMAKE_SOURCE_DIR}/tests/fixtures/seqpar_fixture.csv)
  set_tests_properties(seqpar_summary_fixture PROPERTIES LABELS cpu)
endif()
if(PKBENCH_GNUPLOT)
  add_test(NAME seqpar_plot_fixture COMMAND bash -c [=[
      out=$(mktemp -d) && trap 'rm -rf "$out"' EXIT
      cp "$1" "$out/seqpar.csv" && "$0" "$out" 2> /dev/null && test -s "$out/ring_N2_H16.png" && test -s "$out/ring_split_N2_H16.png" &&
        echo "figures of the fixture"
      ]=] ${CMAKE_SOURCE_DIR}/microbench/seqpar/plot.sh ${CMAKE_SOURCE_DIR}/tests/fixtures/seqpar_fixture.csv)
  set_tests_properties(seqpar_plot_fixture PROPERTIES LABELS cpu)
endif()
