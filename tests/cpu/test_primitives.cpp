// The primitives study without a GPU: its vocabulary (every catalogued row names a valid
// memory ordering and says what it does), the generic CSV reader, and the summary's ratios
// on a fixture CSV (hand-written numbers in the study's schema).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "microbench/primitives/primitives.h"
#include "microbench/primitives/primitives_summary.h"

using namespace pk;
using namespace pk::prim;

static const std::string kFixture = PKBENCH_FIXTURE_DIR "/primitives_fixture.csv";

TEST(PrimitivesCatalogue, EveryRowNamesAValidOrderingAndWhatItDoes) {
  const auto specs = catalogue(Options{});
  ASSERT_GT(specs.size(), 100u);
  std::set<std::string> names;
  for (const Spec& s : specs) {
    const std::string n = point_name(s);
    EXPECT_TRUE(names.insert(n).second) << "duplicate point " << n;
    EXPECT_TRUE(is_ordering_label(s.ordering)) << n << ": '" << s.ordering << "'";
    EXPECT_FALSE(s.ordering_detail.empty()) << n;
    EXPECT_FALSE(s.call.empty()) << n;
    // A library row's ordering is the library's: it must say what the call does.
    if (s.style == kStyleNvshmem) {
      EXPECT_EQ(s.ordering, kOrderLibrary) << n;
      EXPECT_TRUE(s.needs_process_per_gpu) << n;
    }
    if (s.style == kStyleEmulation) {
      EXPECT_NE(s.ordering_detail.find("emulation"), std::string::npos) << n;
    }
    // Every signal row says whether it is enough for data written before the flag.
    if (s.op == "signal" || s.op == "put_signal" || s.op == "barrier") {
      EXPECT_TRUE(s.protocol_correct == "yes" || s.protocol_correct == "no") << n;
    }
  }
}

TEST(PrimitivesCatalogue, PkSignalsCoverEveryOrderingAndRelaxedIsMarkedIncorrect) {
  std::set<std::string> seen;
  for (const Spec& s : catalogue(Options{}))
    if (s.style == kStylePk && s.op == "put_signal") {
      seen.insert(s.ordering);
      // Relaxed is wrong for data written before the flag, right when the flag is inside the data (LL).
      EXPECT_EQ(s.protocol_correct, s.ordering == kOrderRelaxed && s.mode != "ll" ? "no" : "yes") << s.ordering;
    }
  EXPECT_EQ(seen, (std::set<std::string>{kOrderRelaxed, kOrderReleaseAcquire, kOrderFenceThenRelaxed, kOrderAtomic}));
}

TEST(PrimitivesCatalogue, EveryStyleIsInTheSameRunAndFiltersWork) {
  std::set<std::string> styles;
  for (const Spec& s : catalogue(Options{})) styles.insert(s.style);
  EXPECT_EQ(styles, (std::set<std::string>(style_names().begin(), style_names().end())));
}

// The summary reads through the sweeps' reader (one CSV reader for the suite): by column
// name in any order, the primitives study's columns checked, a malformed row refused.
TEST(PrimitivesCsv, ReadsByColumnNameInAnyOrder) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  const PrimitivesRows t = read_csv(write("prim_any_order.csv", "status,value,study,op\nok,12.5,primitives,put\nerror,,primitives,get\n"));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].at("op"), "get");
  EXPECT_DOUBLE_EQ(value_of(t.rows[0]), 12.5);
  EXPECT_EQ(find_ok(t, {{"value", "12.5"}}), &t.rows[0]);
  EXPECT_EQ(find_ok(t, {{"status", "error"}}), nullptr);  // only ok rows are found
  EXPECT_THROW(read_csv(write("prim_long_row.csv", "status,value\nok,1,2\n")), std::runtime_error);
  EXPECT_THROW(read_csv(write("prim_foreign.csv", "status,tflops\nok,1\n")), std::runtime_error);  // not a primitives column
  EXPECT_THROW(read_csv("/nonexistent/primitives.csv"), std::runtime_error);
}

TEST(PrimitivesFixture, OrderingLabelsAreValid) {
  const PrimitivesRows t = read_csv(kFixture);
  ASSERT_EQ(t.rows.size(), 63u);
  for (const auto& c : study_columns())
    EXPECT_NE(std::find(t.columns.begin(), t.columns.end(), c), t.columns.end()) << c;
  for (const Row& r : t.rows) EXPECT_TRUE(is_ordering_label(r.at("ordering"))) << r.at("ordering");
}

TEST(PrimitivesSummary, PutsThePapersNumbersBesideTheMeasuredRatios) {
  const std::string md = summary_markdown(read_csv(kFixture));
  EXPECT_NE(md.find("| element-wise put latency, NVSHMEM / PK | up to 4.50x | up to 4.50x (4 B thread blocking); "
                    "range 2.50x .. 4.50x |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| element-wise put latency, NCCL device API / PK | - | up to 1.20x (4 B thread); range 1.10x .. 1.20x"),
            std::string::npos);
  EXPECT_NE(md.find("| element-wise put bandwidth, PK - NVSHMEM | about +20 GB/s | +20.0 GB/s .. +30.0 GB/s |"),
            std::string::npos);
  EXPECT_NE(md.find("PK - emulation (our own NVSHMEM-shaped code, not NVSHMEM) | - | +50.0 GB/s"), std::string::npos);
}

TEST(PrimitivesSummary, ReportsRegisterValuedPutsAndLibraryVersions) {
  const std::string md = summary_markdown(read_csv(kFixture));
  EXPECT_NE(md.find("pk 10.0 ns, nvshmem 40.0 ns (4.00x), nccl_dev 11.0 ns (1.10x)"), std::string::npos) << md;
  EXPECT_NE(md.find("Libraries: NCCL 2.28.3, NVSHMEM 3.4.5."), std::string::npos);
}

TEST(PrimitivesSummary, PrintsTheTargetsItIsGivenAndJudgesNone) {
  // The verdicts are primitives_targets.h's (tested in test_sweeps_verdict.cpp); the summary
  // prints the table it is given, and judges nothing.
  const std::string md = summary_markdown(read_csv(kFixture), "| a target | from primitives_targets |\n");
  EXPECT_NE(md.find("## Targets (same run)\n\n| a target | from primitives_targets |\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("met ("), std::string::npos);
  EXPECT_EQ(md.find("missed"), std::string::npos);
  EXPECT_NE(summary_markdown(read_csv(kFixture)).find("Not judged here"), std::string::npos);
  // NVSHMEM's bare signal (library-defined ordering) has no pkbench row of its ordering: its
  // figure, no speedup.
  EXPECT_NE(md.find("- nvshmem signal thread set library-defined nvshmem_heap (flag): 690 ns; no pkbench row of the "
                    "same protocol and ordering, so no speedup is stated"),
            std::string::npos);
  // Data then flag has a pkbench row of NCCL's ordering: not listed as unmatched.
  EXPECT_EQ(md.find("- nccl_dev put_signal"), std::string::npos);
}

TEST(PrimitivesSummary, StatesAProtocolsOwnAdvantageSeparately) {
  const std::string md = summary_markdown(read_csv(kFixture));
  EXPECT_NE(md.find("The LL protocol's own advantage (pkbench rows only, not a library comparison): 16 B with the "
                    "flag in every data word, 400 ns one-way, against data then a flag (release_acquire_sys) 780 ns: "
                    "1.95x from the protocol"),
            std::string::npos)
      << md;
  // Every signal row of the table names its protocol and ordering.
  EXPECT_NE(md.find("| put_signal | pk ll | ll | relaxed |"), std::string::npos);
  EXPECT_NE(md.find("| put_signal | pk | data_then_flag | release_acquire_sys |"), std::string::npos);
}

TEST(PrimitivesCatalogue, EverySignalRowNamesItsProtocol) {
  for (const Spec& s : catalogue(Options{})) {
    const std::string p = spec_row(s).at("protocol");
    if (s.op == "signal") EXPECT_EQ(p, kProtocolFlag) << point_name(s);
    if (s.op == "put_signal") EXPECT_EQ(p, s.mode == "ll" ? kProtocolLL : kProtocolDataThenFlag) << point_name(s);
  }
}

TEST(PrimitivesSummary, StatesWhatReleaseOrderingCostsAndWhichVariantIsNeeded) {
  const std::string md = summary_markdown(read_csv(kFixture));
  EXPECT_NE(md.find("| signal | 700 ns | 750 ns (+50 ns) | 900 ns (+200 ns) | 760 ns (+60 ns) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("Cheapest correct PK variant of data then a flag measured here: release_acquire_sys (780 ns one-way)"),
            std::string::npos);
  // A library signal that beats PK's ordered signals only by ordering less is called out.
  EXPECT_NE(md.find("nvshmem signal thread set library-defined nvshmem_heap (690 ns) is faster than PK's fastest "
                    "ordered signal (750 ns, release_acquire_sys) only because it orders less"),
            std::string::npos);
  EXPECT_NE(md.find("| pk | 5.0 ns | 1200 ns | 1100 ns | 1195 ns | 1095 ns |"), std::string::npos);
  EXPECT_NE(md.find("skipped: NVSHMEM needs one process per GPU"), std::string::npos);
}
