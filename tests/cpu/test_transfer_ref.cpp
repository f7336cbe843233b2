// CPU tests of nvbandwidth as the transfer study's reference tool (transfer_ref.h): its --json
// output read back, which testcase and cell answer which row, and the merge into the rows.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/transfer/transfer_grid.h"
#include "microbench/transfer/transfer_ref.h"

using namespace pk::transfer;

namespace {

// What nvbandwidth -j prints, for three GPUs (the shape of its json_output.cpp: matrices of
// strings, "N/A" on the diagonal; the bidirectional testcases stack their three matrices).
const char* kJson = R"({
  "nvbandwidth" : {
    "CUDA Runtime Version" : 13000,
    "version" : "v0.8",
    "testcases" : [
      { "name" : "device_to_device_memcpy_write_ce", "status" : "Passed", "sum" : 6.0,
        "bandwidth_matrix" : [ [ "N/A", "101", "102" ], [ "110", "N/A", "112" ], [ "120", "121", "N/A" ] ] },
      { "name" : "device_to_device_memcpy_read_sm", "status" : "Passed", "sum" : 6.0,
        "bandwidth_matrix" : [ [ "N/A", "201", "202" ], [ "210", "N/A", "212" ], [ "220", "221", "N/A" ] ] },
      { "name" : "device_to_device_bidirectional_memcpy_write_ce", "status" : "Passed", "sum" : 1.0,
        "bandwidth_matrix" : [ [ "N/A", "1", "1" ], [ "1", "N/A", "1" ], [ "1", "1", "N/A" ],
                               [ "N/A", "2", "2" ], [ "2", "N/A", "2" ], [ "2", "2", "N/A" ],
                               [ "N/A", "700", "3" ], [ "3", "N/A", "3" ], [ "3", "3", "N/A" ] ] },
      { "name" : "one_to_all_write_ce", "status" : "Passed", "sum" : 1.0, "bandwidth_matrix" : [ [ "600", "601", "602" ] ] },
      { "name" : "all_to_one_read_sm", "status" : "Passed", "sum" : 1.0, "bandwidth_matrix" : [ [ "500", "501", "502" ] ] }
    ]
  }
})";

CsvRow row(const std::string& mech, const std::string& dir, const std::string& pattern, int src, int dst,
           double gbps) {
  const std::string B = std::to_string(kNvbandwidthBytes);
  return {{"status", "ok"},        {"mechanism", mech},        {"direction", dir},   {"pattern", pattern},
          {"src_gpu", std::to_string(src)}, {"dst_gpu", std::to_string(dst)}, {"message_bytes", mech == "ce" ? B : "65536"},
          {"bytes_per_op", B},     {"sweep", "nvbandwidth"},    {"flows", "2"},       {"gpus_used", "3"},
          {"gbps", std::to_string(gbps)}};
}

}  // namespace

TEST(TransferRef, ReadsNvbandwidthJson) {
  const NvbRun r = parse_nvbandwidth_json(std::string("nvbandwidth Version: v0.8\n") + kJson);
  EXPECT_EQ(r.version, "v0.8");
  ASSERT_EQ(r.testcases.size(), 5u);
  EXPECT_EQ(r.testcases[0].matrix[1][2], 112);
  EXPECT_LT(r.testcases[0].matrix[1][1], 0);  // N/A
  EXPECT_EQ(r.testcases[2].matrix.size(), 9u);
  EXPECT_THROW(parse_nvbandwidth_json("no json here"), std::runtime_error);
  EXPECT_THROW(parse_nvbandwidth_json(R"({"nvbandwidth": {"error": "cuInit failed", "testcases": []}})"),
               std::runtime_error);
  EXPECT_THROW(parse_nvbandwidth_json(R"({"nvbandwidth": {"testcases": [{"name": "x", "bandwidth_matrix": [["fast"]]}]}})"),
               std::runtime_error);
}

// push = write (the source's row), pull = read (the destination's row, its context pulls),
// bidirectional: the Total matrix halved, fans: the root's total over the flows; one_to_all
// pull is nvbandwidth's all_to_one_read (the root's data read by every peer).
TEST(TransferRef, CounterpartsAndMerge) {
  const uint64_t B = kNvbandwidthBytes;
  EXPECT_EQ(nvbandwidth_counterpart(row("ce", "push", "one_way", 1, 2, 1), B, 3).testcase,
            "device_to_device_memcpy_write_ce");
  const NvbMatch pull = nvbandwidth_counterpart(row("reg", "pull", "one_way", 1, 2, 1), B, 3);
  EXPECT_EQ(pull.testcase, "device_to_device_memcpy_read_sm");
  EXPECT_EQ(pull.row, 2);
  EXPECT_EQ(pull.col, 1);
  EXPECT_EQ(nvbandwidth_counterpart(row("reg", "pull", "one_to_all", 0, 1, 1), B, 3).testcase, "all_to_one_read_sm");
  EXPECT_EQ(nvbandwidth_counterpart(row("ce", "push", "all_to_one", 1, 0, 1), B, 3).testcase, "all_to_one_write_ce");
  // No counterpart: another message size, a register copy outside the nvbandwidth sweep, a fan
  // over fewer GPUs than the tool ran on, the mixed direction, all_pairs.
  CsvRow small = row("ce", "push", "one_way", 0, 1, 1);
  small["message_bytes"] = "65536";
  EXPECT_EQ(nvbandwidth_counterpart(small, B, 3).testcase, "");
  CsvRow fig2 = row("reg", "push", "one_way", 0, 1, 1);
  fig2["sweep"] = "fig2";
  EXPECT_EQ(nvbandwidth_counterpart(fig2, B, 3).testcase, "");
  EXPECT_EQ(nvbandwidth_counterpart(row("ce", "push", "one_to_all", 0, 1, 1), B, 4).testcase, "");
  EXPECT_EQ(nvbandwidth_counterpart(row("ce", "mixed", "one_way", 0, 1, 1), B, 3).testcase, "");
  EXPECT_EQ(nvbandwidth_counterpart(row("ce", "push", "all_pairs", 0, 1, 1), B, 3).testcase, "");

  std::vector<CsvRow> rows = {row("ce", "push", "one_way", 1, 2, 112 * 1.02),   // 2 % above the tool
                              row("reg", "pull", "one_way", 1, 2, 221 * 0.90),  // 10 % below
                              row("ce", "push", "bidir", 0, 1, 350),            // Total 700 / 2 directions
                              row("ce", "push", "one_to_all", 1, 0, 300.5),     // 601 over 2 flows
                              row("reg", "pull", "one_to_all", 2, 0, 251),      // all_to_one_read_sm, root 2
                              row("ce", "pull", "one_way", 0, 1, 100)};         // no such testcase run
  const auto tcs = nvbandwidth_testcases(rows, B, 3);
  EXPECT_EQ(tcs, (std::vector<std::string>{"all_to_one_read_sm", "device_to_device_bidirectional_memcpy_write_ce",
                                           "device_to_device_memcpy_read_ce", "device_to_device_memcpy_read_sm",
                                           "device_to_device_memcpy_write_ce", "one_to_all_write_ce"}));
  NvbRun run = parse_nvbandwidth_json(kJson);
  run.buffer_bytes = B;
  NvbRun again = run;
  again.testcases[0].matrix[1][2] = 114;  // a second run of the tool: the median of the two
  EXPECT_EQ(merge_nvbandwidth(rows, {run, again}), 5);
  EXPECT_EQ(rows[0]["ref_gbps"], "113");
  EXPECT_EQ(rows[0]["ref_tool"], "nvbandwidth v0.8 device_to_device_memcpy_write_ce -b 512 (median of 2 runs)");
  EXPECT_NEAR(std::stod(rows[0]["ref_ratio"]), 112 * 1.02 / 113, 1e-4);
  EXPECT_EQ(rows[1]["ref_gbps"], "221");
  EXPECT_NEAR(std::stod(rows[1]["ref_ratio"]), 0.90, 1e-4);
  EXPECT_EQ(rows[2]["ref_gbps"], "350");
  EXPECT_EQ(rows[3]["ref_gbps"], "300.5");
  EXPECT_EQ(rows[4]["ref_gbps"], "251");
  EXPECT_EQ(rows[5].count("ref_tool"), 0u);
}
