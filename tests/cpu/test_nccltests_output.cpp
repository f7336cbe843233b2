// nccl-tests' text output read back and merged into the NCCL rows. The sample is written by
// hand in the format nccl-tests 2.19 prints (src/util.cu), not captured from a run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/collectives/coll_problem.h"
#include "microbench/collectives/nccltests_output.h"
#include "microbench/harness/tidy_csv.h"

using namespace pk::coll;

namespace {

const char* kAllReduceGraph =
    "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 1 minBytes 4096 maxBytes 16384 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
    "validation: 1 graph: 1 unalign: 0\n"
    "#\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   1234 on       host device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
    "#\n"
    "#                                                              out-of-place                       in-place\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw "
    " #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n"
    "        4096          2048  bfloat16     sum      -1     0.98    4.18    0.00       0     0.95    4.31    0.00"
    "       0\n"
    "        8192          4096  bfloat16     sum      -1     1.02    8.03    0.00       0     1.01    8.11    0.00"
    "       0\n"
    "       16384          8192  bfloat16     sum      -1     1.10   14.89    0.00       0     1.09   15.03    0.00"
    "       0\n"
    "# Out of bounds values : 0 OK\n"
    "# Avg bus bandwidth    : 0 \n"
    "#\n"
    "# Collective test concluded: all_reduce_perf\n";

}  // namespace

TEST(NcclTestsOutput, ReadsHeaderAndOutOfPlaceTimes) {
  const NcclTestsRun r = parse_nccltests_output(kAllReduceGraph);
  EXPECT_EQ(r.version, "2.19.6");
  EXPECT_EQ(r.program, "all_reduce_perf");
  EXPECT_EQ(r.collective(), "all_reduce");
  EXPECT_EQ(r.tool(), "nccl-tests 2.19.6 all_reduce_perf");
  EXPECT_EQ(r.ranks, 1);
  EXPECT_EQ(r.graph_launches, 1);
  EXPECT_EQ(r.iters, 20);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0].bytes, 4096u);
  EXPECT_EQ(r.lines[0].type, "bfloat16");
  EXPECT_DOUBLE_EQ(r.lines[0].time_us, 0.98);  // out-of-place, not the in-place 0.95
  EXPECT_EQ(r.lines[2].bytes, 16384u);
  EXPECT_DOUBLE_EQ(r.lines[2].time_us, 1.10);
  EXPECT_EQ(r.lines[1].wrong, 0);
}

TEST(NcclTestsOutput, RefusesWhatIsNotNcclTestsOutput) {
  EXPECT_THROW(parse_nccltests_output(""), std::runtime_error);
  EXPECT_THROW(parse_nccltests_output("size,time\n4096,1.0\n"), std::runtime_error);
  std::string cut = kAllReduceGraph;
  cut = cut.substr(0, cut.find("        4096")) + "        4096          2048  bfloat16     sum\n";
  EXPECT_THROW(parse_nccltests_output(cut), std::runtime_error);
  std::string garbled = kAllReduceGraph;
  garbled.replace(garbled.find("0.98"), 4, "fast");
  EXPECT_THROW(parse_nccltests_output(garbled), std::runtime_error);
}

TEST(NcclTestsOutput, MergesIntoMatchingNcclRowsOnly) {
  const NcclTestsRun run = parse_nccltests_output(kAllReduceGraph);
  auto row = [](std::string impl, std::string config, std::string mode, std::string bytes, std::string dtype,
                std::string gpus) {
    return CsvRow{{"collective", "all_reduce"}, {"impl", impl},   {"nccl_config", config}, {"launch_mode", mode},
                  {"bytes", bytes},             {"dtype", dtype}, {"gpus", gpus},          {"status", "ok"},
                  {"time_us_nccltests", "1.029"}};
  };
  std::vector<CsvRow> rows = {
      row("nccl", "default", "graph", "4096", "bf16", "1"),        // matches
      row("nccl", "default", "eager", "4096", "bf16", "1"),        // the run was -G: no
      row("nccl", "default", "graph", "4096", "fp32", "1"),        // other dtype: no
      row("nccl", "default", "graph", "4096", "bf16", "2"),        // other GPU count: no
      row("nccl_sym", "symmetric", "graph", "4096", "bf16", "1"),  // other configuration: no
      row("one_shot", "", "graph", "4096", "bf16", "1"),           // ours: no
      row("nccl", "default", "graph", "16384", "bf16", "1"),       // matches
  };
  EXPECT_EQ(merge_nccltests(rows, {run}, "default"), 2);
  EXPECT_EQ(rows[0]["ref_tool"], "nccl-tests 2.19.6 all_reduce_perf -G 1");
  EXPECT_EQ(rows[0]["ref_time_us"], "0.98");
  EXPECT_EQ(rows[0]["ref_ratio"], "1.0500");  // 1.029 / 0.98
  EXPECT_EQ(rows[6]["ref_time_us"], "1.1");
  EXPECT_EQ(rows[6]["ref_ratio"], "0.9355");
  for (int i : {1, 2, 3, 4, 5}) EXPECT_EQ(rows[i].count("ref_tool"), 0u) << i;
}

TEST(NcclTestsOutput, SeveralRunsOfTheToolGiveTheirMedian) {
  // The same invocation three times (ref_check.sh's REPEATS): the reference is the median
  // figure, not the last file read, and ref_tool says how many runs it stands for.
  auto with_time = [](const std::string& t) {
    std::string text = kAllReduceGraph;
    text.replace(text.find("0.98"), 4, t);
    return parse_nccltests_output(text);
  };
  std::vector<CsvRow> rows = {{{"collective", "all_reduce"}, {"impl", "nccl"}, {"nccl_config", "default"},
                               {"launch_mode", "graph"}, {"bytes", "4096"}, {"dtype", "bf16"}, {"gpus", "1"},
                               {"status", "ok"}, {"time_us_nccltests", "1.10"}}};
  EXPECT_EQ(merge_nccltests(rows, {with_time("1.30"), with_time("0.90"), with_time("1.00")}, "default"), 1);
  EXPECT_EQ(rows[0]["ref_time_us"], "1");
  EXPECT_EQ(rows[0]["ref_ratio"], "1.1000");
  EXPECT_EQ(rows[0]["ref_tool"], "nccl-tests 2.19.6 all_reduce_perf -G 1 (median of 3 runs)");
  // A row timed over 10 graph launches takes no -G 1 figure.
  rows[0]["nccltests_graph_launches"] = "10";
  rows[0].erase("ref_tool");
  EXPECT_EQ(merge_nccltests(rows, {with_time("1.30")}, "default"), 0);
  EXPECT_EQ(rows[0].count("ref_tool"), 0u);
}

TEST(NcclTestsOutput, StudyRunsCombineIntoTheirMedian) {
  // Three rounds of the study: each row's figure becomes the median of the rounds that have
  // it (a failed round's row is left out), busbw follows the time, repeats are counted.
  auto row = [](std::string bytes, std::string t, std::string status = "ok") {
    return CsvRow{{"collective", "all_reduce"}, {"impl", "nccl"}, {"nccl_config", "default"}, {"dtype", "bf16"},
                  {"bytes", bytes}, {"gpus", "1"}, {"launch_mode", "eager"}, {"status", status},
                  {"time_us_nccltests", t}, {"busbw_gbps_nccltests", "10"}, {"nccltests_repeats", "1"}};
  };
  std::vector<std::vector<CsvRow>> runs = {{row("4096", "8"), row("8192", "5")},
                                           {row("4096", "4"), row("8192", "99", "error")},
                                           {row("4096", "5"), row("8192", "6")}};
  EXPECT_EQ(combine_study_runs(runs), 2);
  EXPECT_EQ(runs[0][0]["time_us_nccltests"], "5");
  EXPECT_EQ(runs[0][0]["busbw_gbps_nccltests"], "16");  // 10 x 8 / 5
  EXPECT_EQ(runs[0][0]["nccltests_repeats"], "3");
  EXPECT_EQ(runs[0][1]["time_us_nccltests"], "5.5");  // the error round left out
  EXPECT_EQ(runs[0][1]["nccltests_repeats"], "2");
}

TEST(NcclTestsOutput, ForcedConfigurationRowsGetTheirReference) {
  // A row as the study writes it (its nccl_config cell through the CSV writer) and the
  // configuration as pkbench_coll_ref / ref_check.sh name it: the same string, so it merges.
  const NcclTestsRun run = parse_nccltests_output(kAllReduceGraph);
  for (const NcclConfig& c : nccl_configs()) {
    std::vector<CsvRow> rows = {{{"collective", "all_reduce"}, {"impl", c.impl_name()},
                                 {"nccl_config", pk::plain_field(c.name)}, {"launch_mode", "graph"},
                                 {"bytes", "8192"}, {"dtype", "bf16"}, {"gpus", "1"}, {"status", "ok"},
                                 {"time_us_nccltests", "1.02"}}};
    EXPECT_EQ(merge_nccltests(rows, {run}, c.name), 1) << c.name;
    EXPECT_EQ(rows[0]["ref_time_us"], "1.02") << c.name;
    EXPECT_EQ(rows[0]["ref_ratio"], "1.0000") << c.name;
  }
}
