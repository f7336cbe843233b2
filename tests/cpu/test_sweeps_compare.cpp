// pkbench_compare's core on copies of committed results (tests/fixtures/compare/): one device
// call in two peer modes (H200x2's transfer/peer-modes/single and ipc), and the old code's run
// (H200x2's transfer/transfer.csv and sync/sync.csv) against the new code's.
#include <gtest/gtest.h>

#include <cmath>

#include "sweeps/compare.h"
#include "tests/cpu/sweeps_test_util.h"

using namespace pk;
using namespace pk::sweeps;
using namespace pk::sweeps::testing;

namespace {

const FileDiff& file(const FolderDiff& d, const std::string& name) {
  for (const auto& f : d.files)
    if (f.file == name) return f;
  throw std::runtime_error("no " + name);
}

// The point whose label holds every one of `tokens` ("mechanism=ce", ...).
const PointDiff* point(const FileDiff& f, const std::vector<std::string>& tokens) {
  for (const auto& p : f.points) {
    const std::string label = " " + p.point + " ";
    bool all = true;
    for (const auto& t : tokens) all &= label.find(" " + t + " ") != std::string::npos;
    if (all) return &p;
  }
  return nullptr;
}

}  // namespace

TEST(SweepsCompare, AFolderAgainstItselfHasNoChange) {
  const std::string dir = fixture("compare/single");
  const FolderDiff d = compare_folders(dir, dir);
  ASSERT_EQ(d.files.size(), 2u);  // sync.csv, transfer.csv (transfer_tuning.csv is not a study CSV)
  EXPECT_EQ(d.changes(), 0);
  for (const auto& f : d.files)
    for (const auto& p : f.points) EXPECT_DOUBLE_EQ(p.ratio(), 1.0);
}

TEST(SweepsCompare, SingleAgainstIpc) {
  const std::string base = fixture("compare/");
  const FolderDiff d = compare_folders(base + "single", base + "ipc");
  const FileDiff& t = file(d, "transfer.csv");
  EXPECT_EQ(t.study, "transfer");
  EXPECT_EQ(t.points.size(), 997u);  // 1025 rows, 24 errors and 4 skipped in each
  EXPECT_TRUE(t.only_a.empty());
  // The copy engine's small pulls cost ~10 us more per call in one process: far beyond the noise.
  const PointDiff* p = point(t, {"sweep=fig2", "mechanism=ce", "direction=pull", "pattern=one_way", "message_bytes=16"});
  ASSERT_NE(p, nullptr);
  EXPECT_GT(p->ratio(), 4);
  EXPECT_EQ(p->change, +1);
  // ce_batch pull bidir is a genuine read in ipc: ~4.5 % slower, flagged.
  int ce_batch_worse = 0;
  for (const auto& q : t.points)
    if (q.group == "ce_batch/pull/bidir") ce_batch_worse += q.change < 0;
  EXPECT_EQ(ce_batch_worse, 15);
  // Device-initiated mechanisms: every point within 1.5 % (their peaks agree within 0.1 %).
  for (const auto& q : t.points) {
    if (q.group.rfind("tma_", 0) == 0 || q.group.rfind("reg", 0) == 0) {
      EXPECT_NEAR(q.ratio(), 1.0, 0.015) << q.point;
    }
  }
  const FileDiff& s = file(d, "sync.csv");
  EXPECT_EQ(s.points.size(), 12u);
  EXPECT_EQ(s.better() + s.worse(), 0);
  const std::string md = compare_markdown(d);
  EXPECT_NE(md.find("| ce_batch/pull/bidir | 15 |"), std::string::npos) << md;
  EXPECT_NE(md.find("transfer_tuning.csv: not a study CSV"), std::string::npos);
}

TEST(SweepsCompare, OldCodeAgainstNewCode) {
  const FolderDiff d = compare_folders(fixture("compare/old"), fixture("compare/single"));
  const FileDiff& t = file(d, "transfer.csv");
  EXPECT_EQ(t.points.size(), 937u);
  EXPECT_EQ(t.only_b.size(), 60u);  // ce_batch did not exist in the old code
  for (const auto& k : t.only_b) EXPECT_NE(k.find("mechanism=ce_batch"), std::string::npos) << k;
  double lsum = 0;
  for (const auto& p : t.points) lsum += std::log(p.ratio());
  EXPECT_NEAR(std::exp(lsum / t.points.size()), 1.0, 0.005);  // the same hardware, the same numbers overall
  const FileDiff& s = file(d, "sync.csv");
  EXPECT_EQ(s.points.size(), 9u);    // the cross-GPU rows both measured
  EXPECT_EQ(s.only_a.size(), 44u);   // the old run measured every level
  EXPECT_EQ(s.only_b.size(), 3u);    // relaxed variants added since
  EXPECT_FALSE(s.higher_better);
  EXPECT_NE(compare_markdown(d).find("commit d12113004164"), std::string::npos);
}

TEST(SweepsCompare, RefusesStudiesThatDiffer) {
  EXPECT_THROW(compare_files(fixture("transfer_fixture.csv"), fixture("sync_fixture.csv")), std::runtime_error);
  EXPECT_THROW(compare_folders("/nonexistent", "/nonexistent"), std::invalid_argument);
}

TEST(SweepsCompare, MachineFoldersOfTheLayoutCompareStudyByStudy) {
  // <machine>/<study>/<study>.csv on both sides: found below the folders, paired by their path.
  const std::string base = fixture("compare/");
  const std::string a = temp_dir("compare_layout_a"), b = temp_dir("compare_layout_b");
  for (const auto& [dir, from] : {std::pair{a, base + "single"}, std::pair{b, base + "ipc"}}) {
    std::filesystem::create_directories(dir + "/sync");
    std::filesystem::copy_file(from + "/sync.csv", dir + "/sync/sync.csv");
  }
  const FolderDiff d = compare_folders(a, b);
  ASSERT_EQ(d.files.size(), 1u);
  EXPECT_EQ(d.files[0].study, "sync");
  EXPECT_FALSE(d.files[0].points.empty());
}
