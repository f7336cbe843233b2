// The sweep driver on a fixture CSV (hand-written numbers in the study's schema).
#include <gtest/gtest.h>

#include "sweeps/transfer_table.h"

using namespace pk::sweeps;

static const std::string kFixture = PKBENCH_FIXTURE_DIR "/transfer_fixture.csv";

static const MechanismSummary& get(const std::vector<MechanismSummary>& s, const std::string& mech,
                                   const std::string& dir) {
  for (const auto& x : s)
    if (x.mechanism == mech && x.direction == dir && x.pattern == "one_way") return x;
  throw std::runtime_error("missing " + mech);
}

TEST(TransferSummary, ReadsOnlySuccessfulRows) {
  auto rows = read_transfer_csv(kFixture);
  EXPECT_EQ(rows.size(), 27u);
  for (const auto& r : rows) EXPECT_EQ(r.status, "ok");
  EXPECT_THROW(read_transfer_csv("/nonexistent.csv"), std::runtime_error);
}

TEST(TransferSummary, Table1Columns) {
  auto s = summarize_mechanisms(read_transfer_csv(kFixture));
  const auto& ce = get(s, "ce", "push");
  EXPECT_DOUBLE_EQ(ce.peak_gbps, 370);
  EXPECT_EQ(ce.min_message_90, 256u << 20);
  EXPECT_EQ(ce.min_message_80_line, 16u << 20);
  EXPECT_EQ(ce.min_sms_90, 0);
  const auto& tma = get(s, "tma_bulk", "push");
  EXPECT_DOUBLE_EQ(tma.peak_gbps, 365);
  EXPECT_NEAR(tma.pct_line(), 91.25, 1e-9);
  EXPECT_EQ(tma.min_message_90, 2048u);
  EXPECT_EQ(tma.min_sms_90, 12);
  EXPECT_EQ(get(s, "reg", "push").min_sms_90, 96);
}

TEST(TransferSummary, TuningTablePicksFastestAndFewestSms) {
  auto t = tuning_table(read_transfer_csv(kFixture));
  auto find = [&](uint64_t msg) -> const TuningEntry& {
    for (const auto& e : t)
      if (e.direction == "push" && e.pattern == "one_way" && e.message_bytes == msg) return e;
    throw std::runtime_error("missing entry");
  };
  const auto& e16k = find(16384);
  EXPECT_EQ(e16k.best.mechanism, "tma_bulk");
  EXPECT_EQ(e16k.best_min_sms, 12);
  EXPECT_TRUE(e16k.best_sm_swept);
  const auto& e2k = find(2048);  // the erroring tma_tile row (999 GB/s) must not win
  EXPECT_EQ(e2k.best.mechanism, "tma_bulk");
  const auto& e64k = find(65536);
  EXPECT_EQ(e64k.best.mechanism, "reg");
  EXPECT_EQ(e64k.best_min_sms, 96);
  const auto& e1g = find(1ull << 30);
  EXPECT_EQ(e1g.best.mechanism, "ce");
  EXPECT_FALSE(e1g.has_device);
  std::string csv = tuning_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find(',')), "direction");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(t.size() + 1));
}

TEST(TransferSummary, MarkdownStatesTargets) {
  auto rows = read_transfer_csv(kFixture);
  std::string md = summary_markdown(rows, summarize_mechanisms(rows), 200);
  EXPECT_NE(md.find("| push | one_way | tma_bulk | 365.0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("= 0.986 (target >= 0.97): **met**"), std::string::npos) << md;
  EXPECT_NE(md.find("90 % of its peak with 12 SMs (target <= 16): **met**"), std::string::npos) << md;
  EXPECT_NE(md.find("passes 80 % of line rate at 16 MiB"), std::string::npos) << md;
  EXPECT_NE(md.find("200 s (target <= 240 s): **met**"), std::string::npos) << md;
}
