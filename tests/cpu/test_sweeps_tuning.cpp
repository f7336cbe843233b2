// Tuning tables: the noise-aware choice, the collectives and fused tables on fixtures in
// the schema those studies are expected to write, and the CSV / JSON / header writers.
#include <gtest/gtest.h>

#ifdef PKBENCH_HAVE_JSON
#include <nlohmann/json.hpp>
#endif

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/fused/fused_analysis.h"
#include "microbench/transfer/transfer_analysis.h"
#include "sweeps/tuning_loo.h"
#include "sweeps/tuning_writers.h"
#include "tests/cpu/sweeps_test_util.h"
#include "tuning/include/pkbench/tuning.h"

using namespace pk;
using namespace pk::sweeps;
using namespace pk::fused;
using namespace pk::coll;
using namespace pk::transfer;
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
  const TransferData d = read_transfer(fixture("transfer_h200x2_single.csv"));
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
  // One machine's runs of different keys (as bf16 and fp32 runs are) merge.
  TuningTable other = a;
  for (size_t i = 0; i < other.rows.size(); ++i) other.rows[i][other.column("gpus")] = int64_t{4};
  other.sources = {"other.csv"};
  EXPECT_EQ(merge_tables({a, other}).rows.size(), 2 * a.rows.size());
  other.rows[0] = a.rows[0];  // one key now answered by both
  try {
    merge_tables({a, other});
    FAIL() << "two answers for one key were merged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("other.csv"), std::string::npos) << e.what();
  }
}

// ---- pkbench/tuning.h: answers between measurements, refusals, and the leave-one-out ----

namespace {

namespace tn = pkbench::tuning;

// A collectives table as pkbench_tune writes it (only the columns the API reads), one
// machine, bf16 all-reduce in graph mode on 2 GPUs at 4 KiB, 64 KiB, 1 MiB and 16 MiB.
std::string coll_json(const std::string& version_field = "\"schema_version\": 1,",
                      const std::string& peer_modes = "[\"ipc\"]") {
  auto row = [](const char* bytes, const char* impl, const char* config, int candidates, double us, int line) {
    return std::string("{\"machine\": \"testx2\", \"collective\": \"all_reduce\", \"dtype\": \"bf16\", \"gpus\": 2, "
                       "\"launch_mode\": \"graph\", \"bytes\": ") +
           bytes + ", \"impl\": \"" + impl + "\", \"family\": \"pk\", \"config\": \"" + config +
           "\", \"candidates\": " + std::to_string(candidates) + ", \"time_us\": " + std::to_string(us) +
           ", \"speedup_vs_nccl\": null, \"source\": \"c.csv:" + std::to_string(line) + "\"}";
  };
  return "{\"schema\": \"pkbench-tuning\", " + version_field + " \"table\": \"collectives\", \"peer_modes\": " + peer_modes +
         ", \"rows\": [" + row("4096", "ll", "2 blocks x 512 threads 8B", 3, 3.0, 2) + ", " +
         row("65536", "ll", "32 blocks x 512 threads 8B", 3, 4.0, 3) + ", " +
         row("1048576", "one_shot", "132 blocks x 512 threads", 5, 10.0, 4) + ", " +
         row("16777216", "nccl", "NCCL 2.28.3", 5, 60.0, 5) + "]}";
}

}  // namespace

TEST(TuningApi, ExactBetweenAndOutsideTheMeasuredRange) {
  tn::Tuner t("testx2");
  t.load_json(coll_json(), "coll.json");
  // Exact: measured, from its row; SMs and threads parsed from the free-text config.
  auto c = t.choose_collective("all_reduce", 65536, "bf16", 2);
  EXPECT_EQ(c.basis, tn::Basis::measured);
  EXPECT_EQ(c.impl, "ll");
  EXPECT_EQ(c.sms, 32);
  EXPECT_EQ(c.threads, 512);
  EXPECT_EQ(c.launch_mode, "graph");
  EXPECT_EQ(c.from, std::vector<std::string>{"c.csv:3"});
  EXPECT_DOUBLE_EQ(c.estimate_us, 4.0);
  // 8 KiB: between 4 KiB and 64 KiB, which differ: the nearer on a log2 scale (4 KiB).
  c = t.choose_collective("all_reduce", 8192, "bf16", 2, "graph");
  EXPECT_EQ(c.basis, tn::Basis::interpolated);
  EXPECT_EQ(c.sms, 2);
  EXPECT_EQ(c.from, (std::vector<std::string>{"c.csv:2", "c.csv:3"}));
  EXPECT_GT(c.estimate_us, 3.0);
  EXPECT_LT(c.estimate_us, 4.0);
  // 256 KiB: two octaves from 64 KiB and from 1 MiB: the row chosen among more candidates.
  c = t.choose_collective("all_reduce", 262144, "bf16", 2);
  EXPECT_EQ(c.basis, tn::Basis::interpolated);
  EXPECT_EQ(c.impl, "one_shot");
  EXPECT_EQ(c.sms, 132);
  EXPECT_NEAR(c.estimate_us, std::sqrt(4.0 * 10.0), 1e-9);  // log-linear halfway
  // Outside: refused (both ends); asked to extrapolate: the edge, flagged predicted.
  EXPECT_EQ(t.choose_collective("all_reduce", 1024, "bf16", 2).basis, tn::Basis::refused);
  c = t.choose_collective("all_reduce", 64u << 20, "bf16", 2);
  EXPECT_EQ(c.basis, tn::Basis::refused);
  EXPECT_NE(c.why.find("outside the measured range"), std::string::npos) << c.why;
  tn::Options o;
  o.extrapolate = true;
  tn::Tuner x("testx2", o);
  x.load_json(coll_json());
  c = x.choose_collective("all_reduce", 64u << 20, "bf16", 2);
  EXPECT_EQ(c.basis, tn::Basis::predicted);
  EXPECT_EQ(c.impl, "nccl");
  EXPECT_EQ(c.sms, 0);  // NCCL picks its own grid
  // Keys nobody measured.
  EXPECT_EQ(t.choose_collective("all_reduce", 65536, "fp32", 2).basis, tn::Basis::refused);
  EXPECT_EQ(t.choose_collective("all_reduce", 65536, "bf16", 4).basis, tn::Basis::refused);
}

TEST(TuningApi, RefusesAnotherMachineAnotherSchemaAndVirtualRanks) {
  tn::Tuner h100("h100x1");
  try {
    h100.load_json(coll_json(), "coll.json");
    FAIL() << "a testx2 table was accepted on h100x1";
  } catch (const tn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("measured on testx2, not on h100x1"), std::string::npos) << e.what();
  }
  tn::Options accept;
  accept.accept_machine = "testx2";  // the caller says otherwise
  tn::Tuner ok("h100x1", accept);
  ok.load_json(coll_json());
  EXPECT_EQ(ok.choose_collective("all_reduce", 4096, "bf16", 2).basis, tn::Basis::measured);
  tn::Tuner t("testx2");
  EXPECT_THROW(t.load_json(coll_json("\"schema_version\": 2,")), tn::Error);
  EXPECT_THROW(t.load_json(coll_json("")), tn::Error);  // written before schema 1
  EXPECT_THROW(t.load_json(coll_json("\"schema_version\": 1,", "[\"virtual\"]")), tn::Error);
  EXPECT_THROW(t.load_json("{\"schema_version\": 1, \"rows\": [}"), tn::Error);  // not JSON
  EXPECT_TRUE(t.tables().empty());
  EXPECT_EQ(tn::machine_key("NVIDIA H200", 2), "h200x2");
  EXPECT_EQ(tn::machine_key("NVIDIA H100 80GB HBM3", 1), "h100x1");
}

namespace fake_generated {
// What pkbench_tune generates per table: a row struct and its columns.
struct Row {
  const char* machine;
  const char* op;
  long long gpus, m, n, k;
  const char* overlap;
  long long comm_sms;
  double time_us;
  const char* source;
};
inline constexpr tn::Column<Row> kColumns[] = {
    {"machine", &Row::machine}, {"op", &Row::op},           {"gpus", &Row::gpus},         {"m", &Row::m},
    {"n", &Row::n},             {"k", &Row::k},             {"overlap", &Row::overlap},   {"impl", &Row::overlap},
    {"comm_sms", &Row::comm_sms}, {"time_us", &Row::time_us}, {"source", &Row::source}};
}  // namespace fake_generated

TEST(TuningApi, CompiledRowsCarryTheirSchemaVersion) {
  static constexpr fake_generated::Row rows[] = {{"testx2", "gemm_rs", 2, 8192, 8192, 4096, "inter_sm", 12, 50.0, "f.csv:2"}};
  std::vector<tn::Table> got;
  tn::CompiledSink sink{&got};
  sink("fused", tn::kSchemaVersion, rows, 1, fake_generated::kColumns);
  sink("fused", tn::kSchemaVersion + 1, rows, 1, fake_generated::kColumns);  // a header generated by another pkbench_tune
  ASSERT_EQ(got.size(), 2u);
  tn::Tuner t("testx2");
  t.add(got[0]);
  const auto s = t.choose_split("gemm_rs", 8192, 8192, 4096, 2);
  EXPECT_EQ(s.basis, tn::Basis::measured);
  EXPECT_EQ(s.comm_sms, 12);
  EXPECT_EQ(s.from, std::vector<std::string>{"f.csv:2"});
  EXPECT_THROW(t.add(got[1]), tn::Error);
}

TEST(TuningApi, TransferAnswersFromTheBuilderAndFromItsJsonAgree) {
  const TuningTable tt = transfer_tuning(read_transfer(fixture("transfer_h200x2_single.csv")));
  tn::Tuner mem("h200x2");
  mem.add(api_table(tt));
  // 16 KiB push was measured: TMA, and within 8 SMs its 90 % point (the committed table's).
  const auto m = mem.choose_transfer(16384, "push", 1, -1, true);
  EXPECT_EQ(m.basis, tn::Basis::measured);
  EXPECT_EQ(m.pattern, "one_way");
  const auto b = mem.choose_transfer(16384, "push", 1, 8, true);
  ASSERT_TRUE(b.ok()) << b.why;
  EXPECT_EQ(b.sms, 8);
  EXPECT_NE(b.why.find("8-SM budget"), std::string::npos) << b.why;
  const size_t r90 = row_where(tt, {{"direction", "push"}, {"pattern", "one_way"}, {"choice", "device"}, {"from_bytes", "16384"}});
  EXPECT_NE(cell_text(tt.at(r90, "min_sms_90_config")).find("threads=" + std::to_string(b.threads)), std::string::npos)
      << "the 90 % point's own knobs, not the chosen row's";
  EXPECT_EQ(mem.choose_transfer(16384, "push", 1, 0, true).basis, tn::Basis::refused);
#ifdef PKBENCH_HAVE_JSON
  tn::Tuner js("h200x2");
  js.load_json(table_json(tt), "transfer_tuning.json");
  for (unsigned long long bytes : {16ull, 1000ull, 16384ull, 3ull << 20, 100ull << 20, 1ull << 30}) {
    for (const char* dir : {"push", "pull"}) {
      const auto a = mem.choose_transfer(bytes, dir, 1), j = js.choose_transfer(bytes, dir, 1);
      EXPECT_EQ(a.basis, j.basis) << bytes << dir;
      EXPECT_EQ(a.mechanism, j.mechanism) << bytes << dir;
      EXPECT_EQ(a.sms, j.sms) << bytes << dir;
      EXPECT_EQ(a.from, j.from) << bytes << dir;
    }
  }
#endif
}

TEST(TuningApi, SplitFromTheNearestMeasuredShape) {
  auto row = [](int m, int n, int k, const char* overlap, int sms, int line) {
    return "{\"machine\": \"testx2\", \"op\": \"gemm_rs\", \"gpus\": 2, \"m\": " + std::to_string(m) +
           ", \"n\": " + std::to_string(n) + ", \"k\": " + std::to_string(k) + ", \"overlap\": \"" + overlap +
           "\", \"impl\": \"" + overlap + "\", \"comm_sms\": " + std::to_string(sms) +
           ", \"time_us\": 100.0, \"source\": \"f.csv:" + std::to_string(line) + "\"}";
  };
  tn::Tuner t("testx2");
  t.load_json("{\"schema_version\": 1, \"table\": \"fused\", \"rows\": [" + row(4096, 4096, 2048, "inter_sm", 8, 2) + ", " +
              row(8192, 8192, 4096, "intra_sm", 0, 3) + ", " + row(16384, 16384, 8192, "inter_sm", 16, 4) + "]}");
  auto s = t.choose_split("gemm_rs", 8192, 8192, 4096, 2);
  EXPECT_EQ(s.basis, tn::Basis::measured);
  EXPECT_EQ(s.overlap, "intra_sm");
  s = t.choose_split("gemm_rs", 12288, 12288, 7000, 2);  // nearer 16384x16384x8192 on the log2 scale
  EXPECT_EQ(s.basis, tn::Basis::interpolated);
  EXPECT_EQ(s.comm_sms, 16);
  EXPECT_EQ(s.from, std::vector<std::string>{"f.csv:4"});
  EXPECT_NEAR(s.estimate_us, 100.0 * 12288.0 * 12288 * 7000 / (16384.0 * 16384 * 8192), 1e-9);
  EXPECT_EQ(t.choose_split("gemm_rs", 2048, 2048, 1024, 2).basis, tn::Basis::refused);
  EXPECT_EQ(t.choose_split("gemm_rs", 8192, 8192, 65536, 2).basis, tn::Basis::refused);  // k beyond the range
  EXPECT_EQ(t.choose_split("ag_gemm", 8192, 8192, 4096, 2).basis, tn::Basis::refused);
}

// Leave-one-out on a fixture: push one_way at 4, 8 and 16 KiB. tma_bulk wins at 4 and 16 KiB;
// at 8 KiB reg is 20 % faster (beyond the noise), so the neighbours' answer is 1.2x off there.
TEST(TuningLoo, HidesEachPointAndComparesTheAnswerWithTheBest) {
  const std::string dir = temp_dir("loo");
  auto pt = [](const char* mech, const char* bytes, double gbps, const char* threads) {
    const double b = std::stod(bytes);
    return transfer_row({{"mechanism", mech},
                         {"message_bytes", bytes},
                         {"sms", "132"},
                         {"threads", threads},
                         {"gbps", std::to_string(gbps)},
                         {"time_us_median", std::to_string(b / gbps / 1e3)},
                         {"time_us_min", std::to_string(b / (gbps * 1.001) / 1e3)},
                         {"time_us_max", std::to_string(b / (gbps * 0.999) / 1e3)}});
  };
  write(dir + "/transfer.csv", csv(pk::transfer::transfer_columns(),
                                   {pt("tma_bulk", "4096", 300, "128"), pt("reg", "4096", 200, "512"),
                                    pt("tma_bulk", "8192", 300, "128"), pt("reg", "8192", 360, "512"),
                                    pt("tma_bulk", "16384", 350, "128"), pt("reg", "16384", 250, "512")}));
  const std::vector<LooResult> r = loo_transfer(dir + "/transfer.csv", 0.05);
  ASSERT_EQ(r.size(), 2u);  // any, device
  for (const LooResult& x : r) {
    ASSERT_EQ(x.cases.size(), 3u) << x.table;
    EXPECT_EQ(x.refused(), 2) << x.table;  // 4 and 16 KiB are edges once hidden
    EXPECT_EQ(x.evaluable(), 1);
    EXPECT_EQ(x.within(), 0);
    const LooCase* w = x.worst();
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->basis, "interpolated");
    EXPECT_EQ(w->point, "push one_way 8192 B");
    EXPECT_NE(w->answer.find("tma_bulk"), std::string::npos) << w->answer;
    EXPECT_NEAR(w->ratio(), 360.0 / 300.0, 1e-6);
  }
  EXPECT_NE(loo_markdown(r).find("| all | 6 | 4 | 0 | 2 | 0 | 0.0 % | 1.200x"), std::string::npos) << loo_markdown(r);
  // A 25 % tolerance counts it within.
  EXPECT_EQ(loo_transfer(dir + "/transfer.csv", 0.25)[0].within(), 1);
}

// The collectives' launch knobs (sms, threads) as columns: the table keys its candidates on
// them, answers them, and a run's `tuned` rows are never candidates. The fixture is a
// virtual-rank run (2 ranks on one GPU): its rows name the machine fixturex1-virtual2.
TEST(SweepsTuning, CollectivesKnobsAreColumnsOfTheTableAndVirtualRowsNameTheirOwnMachine) {
  TuningTable t = collectives_tuning(fixture("collectives_knobs_fixture.csv"));
  t.peer_modes = {"virtual"};  // as pkbench_tune --allow-virtual sets them
  const size_t small = row_where(t, {{"from_bytes", "65536"}});
  EXPECT_EQ(cell_text(t.at(small, "machine")), "fixturex1-virtual2");
  // one_shot at 8 x 256 (9.0 us) beats its own default grid (10.0 us); the tuned row (8.5 us)
  // is not a candidate.
  EXPECT_EQ(cell_text(t.at(small, "impl")), "one_shot");
  EXPECT_EQ(std::get<int64_t>(t.at(small, "sms")), 8);
  EXPECT_EQ(std::get<int64_t>(t.at(small, "threads")), 256);
  EXPECT_EQ(cell_text(t.at(small, "knobs")), "sms=8 threads=256");
  EXPECT_EQ(std::get<int64_t>(t.at(small, "candidates")), 3);
  const size_t big = row_where(t, {{"from_bytes", "1048576"}});
  EXPECT_EQ(cell_text(t.at(big, "impl")), "two_shot_push");
  EXPECT_EQ(std::get<int64_t>(t.at(big, "sms")), 16);
  // Runs before the knob columns: the grid read from config where it has one, else unknown.
  const TuningTable old = collectives_tuning(fixture("collectives_fixture.csv"));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(old.at(0, "sms")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(old.at(0, "knobs")));

  // The API answers implementation + SMs + threads + launch mode, for the same virtual ranks only.
  namespace tn = pkbench::tuning;
  tn::Tuner same("fixturex1-virtual2");
  same.add(api_table(t));
  const auto c = same.choose_collective("all_reduce", 65536, "bf16", 2, "eager");
  EXPECT_EQ(c.basis, tn::Basis::measured);
  EXPECT_EQ(c.impl, "one_shot");
  EXPECT_EQ(c.sms, 8);
  EXPECT_EQ(c.threads, 256);
  EXPECT_EQ(c.launch_mode, "eager");
  const auto mid = same.choose_collective("all_reduce", 262144, "bf16", 2, "eager");  // two octaves from each
  EXPECT_EQ(mid.basis, tn::Basis::interpolated);
  tn::Tuner real("fixturex1");  // a real run on that GPU: virtual rows never answer it
  try {
    real.add(api_table(t));
    FAIL() << "a virtual-rank table was accepted for a real machine";
  } catch (const tn::Error& e) {
    EXPECT_NE(std::string(e.what()).find("never tuning input for a real machine"), std::string::npos) << e.what();
  }
  tn::Tuner other("fixturex1-virtual4");  // other virtual ranks: another machine
  EXPECT_THROW(other.add(api_table(t)), tn::Error);
  if (json_available()) {  // the same through the JSON a program loads (peer_modes ["virtual"])
    tn::Tuner j("fixturex1-virtual2");
    j.load_json(table_json(t), "k.json");
    EXPECT_EQ(j.choose_collective("all_reduce", 65536, "bf16", 2, "eager").sms, 8);
    tn::Tuner r("fixturex1");
    tn::Options accept;
    accept.accept_machine = "fixturex1";  // accepting the GPU's real rows does not admit virtual ones
    tn::Tuner ra("h100x1", accept);
    EXPECT_THROW(r.load_json(table_json(t), "k.json"), tn::Error);
    EXPECT_THROW(ra.load_json(table_json(t), "k.json"), tn::Error);
  }
  EXPECT_EQ(tn::virtual_machine_key("h100x1", 4), "h100x1-virtual4");
  EXPECT_TRUE(tn::is_virtual_machine_key("h100x1-virtual4"));
  EXPECT_FALSE(tn::is_virtual_machine_key("h100x1"));
}

TEST(SweepsTuning, TunedRowsAgainstTheBestAndTheDefaultOfTheSameRun) {
  const std::vector<TunedPoint> pts = tuned_points(fixture("collectives_knobs_fixture.csv"));
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].bytes, 65536);
  EXPECT_DOUBLE_EQ(pts[0].tuned_us, 8.5);
  EXPECT_DOUBLE_EQ(pts[0].best_us, 9.0);  // the best other row, the tuned row left out
  EXPECT_EQ(pts[0].best, "one_shot 8 blocks x 256 threads");
  EXPECT_DOUBLE_EQ(pts[0].default_us, 10.0);  // one_shot, knobs auto
  EXPECT_NEAR(pts[0].of_best(), 9.0 / 8.5, 1e-12);
  EXPECT_NEAR(pts[0].over_default(), 10.0 / 8.5, 1e-12);
  EXPECT_EQ(pts[1].tuned_us, 0);
  EXPECT_EQ(pts[1].of_best(), 0);
  EXPECT_EQ(pts[1].answer.rfind("skipped: tuning table k.json", 0), 0u) << pts[1].answer;
  const std::string md = collectives_summary_markdown({fixture("collectives_knobs_fixture.csv")});
  EXPECT_NE(md.find("## Tuned"), std::string::npos);
  EXPECT_NE(md.find("1 of 1 measured points reach the target, worst 1.059"), std::string::npos) << md;
}

TEST(SweepsTuning, AblationComparesAtOneGpuCountAndTheOwnGrid) {
  // Two GPU counts at one size, and a knob-swept base row: each variant is set against the base
  // of its own GPU count at knobs auto (the 99 us knob row is left out), the count shown.
  const std::string md = collectives_summary_markdown({fixture("collectives_ablation_fixture.csv")});
  EXPECT_NE(md.find("| 2 | 1 MiB | eager | 10.00 | - | 12.00 (1.20) | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 4 | 1 MiB | eager | 20.00 | - | 30.00 (1.50) | - |"), std::string::npos) << md;
  EXPECT_EQ(md.find("99.00"), std::string::npos) << md;
}
