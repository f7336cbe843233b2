// Tuning tables: the noise-aware choice, the collectives and fused tables on fixtures in
// the schema those studies are expected to write, and the CSV / JSON / header writers.
#include <gtest/gtest.h>

#ifdef PKBENCH_HAVE_JSON
#include <nlohmann/json.hpp>
#endif

#include "sweeps/collectives_table.h"
#include "sweeps/fused_table.h"
#include "sweeps/transfer_table.h"
#include "sweeps/tuning_table.h"
#include "sweeps_test_util.h"

using namespace pk::sweeps;
using namespace pk::sweeps::testing;

namespace {

size_t row_where(const TuningTable& t, const std::map<std::string, std::string>& match) {
  for (size_t i = 0; i < t.rows.size(); ++i) {
    bool ok = true;
    for (const auto& [c, v] : match) ok &= cell_text(t.at(i, c)) == v;
    if (ok) return i;
  }
  throw std::runtime_error("no matching row");
}

// 16 KiB push one_way: times in us for 16 KiB x 1 op; gbps = 16384 / time / 1e3.
Cells point(const char* mech, int sms, double gbps, double lo, double hi, std::map<std::string, std::string> knobs = {}) {
  const double bytes = 16384;
  const double t = bytes / gbps / 1e3;
  Cells c = transfer_row({{"mechanism", mech},
                          {"message_bytes", "16384"},
                          {"gbps", std::to_string(gbps)},
                          {"time_us_median", std::to_string(t)},
                          {"time_us_min", std::to_string(bytes / hi / 1e3)},
                          {"time_us_max", std::to_string(bytes / lo / 1e3)}});
  if (sms) c["sms"] = std::to_string(sms);
  for (auto& [k, v] : knobs) c[k] = v;
  return c;
}

}  // namespace

TEST(SweepsTuning, ChoosesFewestSmsWithinTheNoise) {
  const std::string dir = temp_dir("noise");
  const auto& cols = pk::transfer::transfer_columns();
  write(dir + "/transfer.csv",
        csv(cols, {point("tma_bulk", 132, 365, 360, 370, {{"threads", "128"}}),
                   point("tma_bulk", 16, 362, 358, 366, {{"threads", "128"}}),  // overlaps 360..370: tied, fewer SMs
                   point("reg", 8, 300, 298, 302, {{"threads", "512"}}),        // fewer SMs but outside the noise
                   point("reg", 132, 364, 363, 365, {{"threads", "512"}}),      // tied, more SMs
                   point("tma_tile", 132, 340, 338, 342, {{"threads", "128"}})}));
  const TuningTable t = transfer_tuning(read_transfer(dir + "/transfer.csv"));
  const size_t r = row_where(t, {{"choice", "device"}, {"from_bytes", "16384"}});
  EXPECT_EQ(cell_text(t.at(r, "machine")), "h200x2");
  EXPECT_EQ(cell_text(t.at(r, "mechanism")), "tma_bulk");
  EXPECT_EQ(std::get<int64_t>(t.at(r, "sms")), 16);
  EXPECT_EQ(std::get<int64_t>(t.at(r, "tied")), 3);
  EXPECT_EQ(std::get<int64_t>(t.at(r, "candidates")), 5);
  EXPECT_EQ(cell_text(t.at(r, "fastest_mechanism")), "tma_bulk");
  EXPECT_NEAR(std::get<double>(t.at(r, "fastest_gbps")), 365, 1e-6);
  EXPECT_NEAR(std::get<double>(t.at(r, "fastest_spread_pct")), 100.0 * 10 / 365, 1e-3);
  EXPECT_NEAR(std::get<double>(t.at(r, "chosen_vs_fastest_pct")), 100.0 * (362.0 / 365 - 1), 1e-6);
  EXPECT_EQ(cell_text(t.at(r, "runner_up_mechanism")), "tma_tile");  // best outside the noise
  EXPECT_NEAR(std::get<double>(t.at(r, "runner_up_gap_pct")), 100.0 * (1 - 340.0 / 365), 1e-6);
  EXPECT_EQ(std::get<int64_t>(t.at(r, "min_sms_90")), 16);  // 90 % of 365 = 328.5: reg at 8 SMs does not count
  EXPECT_TRUE(std::get<bool>(t.at(r, "sms_swept")));
  EXPECT_EQ(cell_text(t.at(r, "source")), dir + "/transfer.csv:3");
}

TEST(SweepsTuning, CommittedH200TableIsComplete) {
  const TransferData d = read_transfer(source_dir() + "/results/h200x2/peer-modes/single/transfer.csv");
  const TuningTable t = transfer_tuning(d);
  // Every direction/pattern/bucket with an ok row has an "any" row; no bucket twice.
  std::set<std::string> seen;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string k = cell_text(t.at(i, "direction")) + cell_text(t.at(i, "pattern")) +
                          cell_text(t.at(i, "choice")) + cell_text(t.at(i, "from_bytes"));
    EXPECT_TRUE(seen.insert(k).second) << k;
    const double chosen = std::get<double>(t.at(i, "gbps"));
    const double fastest = std::get<double>(t.at(i, "fastest_gbps"));
    EXPECT_LE(chosen, fastest + 1e-9);
    EXPECT_GE(std::get<double>(t.at(i, "gbps_high")), std::get<double>(t.at(i, "gbps_low")));
  }
  // Large messages: the copy engine (0 SMs); 16 KiB push: TMA with 8 SMs for 90 %.
  EXPECT_EQ(cell_text(t.at(row_where(t, {{"direction", "push"}, {"pattern", "one_way"}, {"choice", "any"},
                                         {"from_bytes", "1073741824"}}),
                           "mechanism")),
            "ce");
  const size_t r = row_where(t, {{"direction", "push"}, {"pattern", "one_way"}, {"choice", "device"}, {"from_bytes", "16384"}});
  EXPECT_EQ(std::get<int64_t>(t.at(r, "min_sms_90")), 8);
}

TEST(SweepsTuning, CollectivesTableOnFixture) {
  const TuningTable t = collectives_tuning(fixture("collectives_fixture.csv"));
  EXPECT_EQ(t.keys, (std::vector<std::string>{"machine", "collective", "dtype", "gpus", "launch_mode"}));
  const size_t small = row_where(t, {{"collective", "all_reduce"}, {"from_bytes", "65536"}});
  EXPECT_EQ(cell_text(t.at(small, "impl")), "ll");
  EXPECT_NEAR(std::get<double>(t.at(small, "speedup_vs_nccl")), 12.0 / 8.0, 1e-9);  // NCCL's best is nccl_sym
  EXPECT_EQ(cell_text(t.at(small, "nccl_impl")), "nccl_sym");
  EXPECT_EQ(cell_text(t.at(small, "runner_up_impl")), "one_shot");
  // 1 MiB: one_shot is fastest but nccl_sym is within its p10..p90: NCCL is kept.
  const size_t mid = row_where(t, {{"collective", "all_reduce"}, {"from_bytes", "1048576"}});
  EXPECT_EQ(cell_text(t.at(mid, "fastest_impl")), "one_shot");
  EXPECT_EQ(cell_text(t.at(mid, "impl")), "nccl_sym");
  EXPECT_EQ(std::get<int64_t>(t.at(mid, "tied")), 2);
  EXPECT_NEAR(std::get<double>(t.at(mid, "speedup_vs_nccl")), 1.0, 1e-12);
  const size_t big = row_where(t, {{"collective", "all_gather"}, {"launch_mode", "graph"}});
  EXPECT_EQ(cell_text(t.at(big, "impl")), "push");
  EXPECT_NEAR(std::get<double>(t.at(big, "speedup_vs_nccl")), 3000.0 / 2800, 1e-9);
}

TEST(SweepsTuning, FusedTableOnFixture) {
  const TuningTable t = fused_tuning(fixture("fused_fixture.csv"));
  ASSERT_EQ(t.rows.size(), 2u);
  const size_t rs = row_where(t, {{"op", "gemm_rs"}});
  EXPECT_EQ(cell_text(t.at(rs, "overlap")), "intra_sm");  // tied with 8 comm SMs: intra (0 SMs) wins
  EXPECT_EQ(std::get<int64_t>(t.at(rs, "tied")), 2);
  EXPECT_EQ(std::get<int64_t>(t.at(rs, "candidates")), 3);  // the GEMM alone ("component", 500 us) is no solution
  EXPECT_EQ(std::get<int64_t>(t.at(rs, "inter_best_comm_sms")), 8);
  EXPECT_NEAR(std::get<double>(t.at(rs, "intra_speedup_vs_inter")), 1.005, 1e-12);
  EXPECT_NEAR(std::get<double>(t.at(rs, "speedup_vs_baseline")), 1.5, 1e-12);
  const size_t ag = row_where(t, {{"op", "ag_gemm"}});
  EXPECT_EQ(cell_text(t.at(ag, "overlap")), "inter_sm");
  EXPECT_EQ(std::get<int64_t>(t.at(ag, "comm_sms")), 16);
  EXPECT_NEAR(std::get<double>(t.at(ag, "runner_up_gap_pct")), 100.0 * (820.0 / 750 - 1), 1e-9);
}

TEST(SweepsTuning, CsvJsonAndHeaderAgree) {
  const TuningTable t = fused_tuning(fixture("fused_fixture.csv"));
  const std::string dir = temp_dir("writers");
  write(dir + "/fused_tuning.csv", table_csv(t));
  const CsvRows back = read_table_csv(dir + "/fused_tuning.csv");
  ASSERT_EQ(back.rows.size(), t.rows.size());
  EXPECT_EQ(back.header.size(), t.columns.size());
  EXPECT_EQ(back.rows[0][t.column("overlap")], cell_text(t.at(0, "overlap")));
#ifdef PKBENCH_HAVE_JSON
  const auto j = nlohmann::json::parse(table_json(t));
  EXPECT_EQ(j["table"], "fused");
  ASSERT_EQ(j["rows"].size(), t.rows.size());
  for (size_t i = 0; i < t.rows.size(); ++i) {
    EXPECT_EQ(j["rows"][i]["op"], cell_text(t.at(i, "op")));
    EXPECT_EQ(j["rows"][i]["comm_sms"], std::get<int64_t>(t.at(i, "comm_sms")));
    EXPECT_DOUBLE_EQ(j["rows"][i]["time_us"].get<double>(), std::get<double>(t.at(i, "time_us")));
  }
  EXPECT_EQ(j["columns"][0]["name"], "machine");
#else
  EXPECT_THROW(table_json(t), std::runtime_error);
#endif
  const std::string h = tables_header({t}, "test");
  EXPECT_NE(h.find("struct FusedTuning {"), std::string::npos);
  EXPECT_NE(h.find("lookup_fused(std::string_view machine, std::string_view op, long long gpus, long long m, long long n, "
                   "long long k)"),
            std::string::npos)
      << h;
  EXPECT_NE(h.find("inline constexpr const char* kMachines[] = {\"fixturex2\"};"), std::string::npos);
}

TEST(SweepsTuning, MergeRefusesTwoTablesOfOneMachine) {
  const TuningTable a = fused_tuning(fixture("fused_fixture.csv"));
  EXPECT_THROW(merge_tables({a, a}), std::runtime_error);
  const TuningTable m = merge_tables({a});
  EXPECT_EQ(m.rows.size(), a.rows.size());
}
