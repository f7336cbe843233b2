// The launch study's plain C++ side: the registry, the points of the presets and flags, their
// names, the refusals (ArgError naming the flag), the columns.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "microbench/harness/args.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/launch/launch_problem.h"

using namespace pk;
using namespace pk::launch;

namespace {

std::string refusal(const GridText& f, const std::string& preset_name = "default") {
  try {
    plan_points(preset(preset_name), f);
  } catch (const ArgError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LaunchRegistry, EveryVariantIsListedOnceWithItsFlags) {
  std::set<std::string> names;
  for (const VariantInfo& v : variant_infos()) EXPECT_TRUE(names.insert(v.name).second) << v.name;
  EXPECT_EQ(names, (std::set<std::string>{"stream", "pdl", "graph", "graph_pdl"}));
  EXPECT_TRUE(variant_info("graph_pdl").pdl && variant_info("graph_pdl").graph);
  EXPECT_FALSE(variant_info("stream").pdl || variant_info("stream").graph);
  EXPECT_THROW(variant_info("cooperative"), ArgError);
}

TEST(LaunchPoints, TheDefaultPresetCrossesEveryVariantWithItsKernelsAndGrids) {
  const std::vector<Point> pts = plan_points(preset("default"), {});
  EXPECT_EQ(pts.size(), variant_infos().size() * 3 * 2);
  std::set<std::string> names;
  for (const Point& p : pts) EXPECT_TRUE(names.insert(p.name()).second) << p.name();
  EXPECT_EQ(pts.front().name(), "launch/stream/k1/b1");
  EXPECT_EQ(pts.back().name(), "launch/graph_pdl/k64/bsms");
  EXPECT_TRUE(names.count("launch/pdl/k8/b1"));
}

TEST(LaunchPoints, FlagsReplaceThePresetsFieldsAndRepeatsCollapse) {
  const std::vector<Point> pts = plan_points(preset("default"), {"graph,stream", "4,4", "2,sms"});
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].name(), "launch/stream/k4/b2");  // the registry's order, not the flag's
  EXPECT_EQ(pts[1].name(), "launch/graph/k4/b2");
  EXPECT_EQ(pts[3].blocks, 0);
  EXPECT_EQ(calls_per_op(pts[0]), 4);
  EXPECT_EQ(calls_per_op(pts[1]), 1);
}

TEST(LaunchPoints, BadFlagsAreRefusedNamingTheFlag) {
  EXPECT_NE(refusal({"", "0", ""}).find("--kernels"), std::string::npos);
  EXPECT_NE(refusal({"", std::to_string(kMaxKernels + 1), ""}).find("--kernels"), std::string::npos);
  EXPECT_NE(refusal({"", "", "0"}).find("--blocks"), std::string::npos);
  EXPECT_NE(refusal({"", "", "1,,2"}).find("--blocks"), std::string::npos);
  EXPECT_NE(refusal({"", "", "all"}).find("--blocks"), std::string::npos);
  EXPECT_NE(refusal({"cooperative", "", ""}).find("--variants"), std::string::npos);
  EXPECT_THROW(preset("huge"), ArgError);
  EXPECT_EQ(refusal({"", "1:8", "sms"}), "");
}

TEST(LaunchColumns, EveryColumnOnceAndTheMetadataLast) {
  const auto& c = launch_columns();
  EXPECT_EQ(std::set<std::string>(c.begin(), c.end()).size(), c.size());
  for (const char* col : {"variant", "kernels", "blocks", "us_per_kernel_median", "host_us_per_call", "verified", "status"})
    EXPECT_NE(std::find(c.begin(), c.end(), col), c.end()) << col;
  EXPECT_EQ(c.back(), metadata_columns().back());
}
