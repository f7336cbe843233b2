// Capability gating on a fake device of each architecture: what each mechanism and kernel
// needs, what each architecture has, and what this build's device code runs on. No GPU.
#include <gtest/gtest.h>

#include "microbench/harness/capability.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/mechanism.h"
#include "microbench/transfer/transfer_grid.h"

using namespace pk;

namespace {
bool built(const std::string& a) {
  for (const auto& b : built_archs())
    if (b == a) return true;
  return false;
}
}  // namespace

TEST(Capability, FakeDevicesOfEachArchitecture) {
  const GpuInfo a100 = arch_gpu("sm_80"), h100 = arch_gpu("sm_90a"), b200 = arch_gpu("sm_100a");
  EXPECT_EQ(arch_name(a100), "sm_80");
  EXPECT_EQ(arch_name(h100), "sm_90");
  EXPECT_EQ(arch_name(b200), "sm_100");
  EXPECT_EQ(h100.sm_count, reference_gpu().sm_count);
  EXPECT_GT(b200.sm_count, h100.sm_count);
  EXPECT_NE(b200.name.find("not present"), std::string::npos);
  EXPECT_THROW(arch_gpu("sm_99"), ArgError);
  EXPECT_EQ(largest_supported_gpu().sm_count, b200.sm_count);
}

TEST(Capability, FeaturesByArchitecture) {
  const GpuInfo a100 = arch_gpu("sm_80"), h100 = arch_gpu("sm_90a"), b200 = arch_gpu("sm_100a");
  for (Feature f : {Feature::tma, Feature::clusters, Feature::multicast}) {
    EXPECT_NE(missing_feature(f, a100), "") << feature_name(f);
    EXPECT_EQ(missing_feature(f, h100), "") << feature_name(f);
    EXPECT_EQ(missing_feature(f, b200), "") << feature_name(f);
  }
  EXPECT_NE(missing_feature(Feature::tma, a100).find("compute capability >= 9.0 (sm_80 has 8.0)"), std::string::npos);
  // wgmma is sm_90a's alone: not on Ampere, not carried to Blackwell.
  EXPECT_NE(missing_feature(Feature::wgmma, a100), "");
  EXPECT_EQ(missing_feature(Feature::wgmma, h100), "");
  EXPECT_NE(missing_feature(Feature::wgmma, b200).find("wgmma needs sm_90a"), std::string::npos);
}

// "a" targets never run on another compute capability, and nothing here builds for sm_80.
TEST(Capability, DeviceCodeFollowsTheBuiltArchitectures) {
  ASSERT_FALSE(built_archs().empty());
  EXPECT_NE(missing_feature(Feature::device_code, arch_gpu("sm_80")).find("no device code for sm_80"), std::string::npos);
  EXPECT_EQ(missing_feature(Feature::device_code, arch_gpu("sm_90a")) == "", built("90a") || built("90"));
  EXPECT_EQ(missing_feature(Feature::device_code, arch_gpu("sm_100a")) == "", built("100a") || built("100"));
  GpuInfo h200 = arch_gpu("sm_90a");
  h200.cc_minor = 1;  // a later Hopper minor: 90a SASS does not run there
  if (!built("90")) EXPECT_NE(missing_feature(Feature::device_code, h200), "");
}

// What the transfer study would skip on each fake device: TMA mechanisms on sm_80, nothing
// beyond device code on Hopper and Blackwell.
TEST(Capability, TransferPointsGatedPerArchitecture) {
  using namespace pk::transfer;
  GridOptions o;
  o.preset = "smoke";
  for (const char* arch : {"sm_80", "sm_90a", "sm_100a"}) {
    const GpuInfo g = arch_gpu(arch);
    int tma = 0, tma_skipped = 0, others_skipped_beyond_code = 0;
    for (const auto& p : build_grid(o, g, 0)) {
      const Mechanism& m = mechanism(p.mechanism);
      std::vector<Feature> beyond_code;
      for (Feature f : m.needs())
        if (f != Feature::device_code) beyond_code.push_back(f);
      const bool skipped = !missing_features(beyond_code, g).empty();
      if (p.mechanism.rfind("tma", 0) == 0) tma++, tma_skipped += skipped;
      else others_skipped_beyond_code += skipped;
    }
    EXPECT_GT(tma, 0) << arch;
    EXPECT_EQ(tma_skipped, std::string(arch) == "sm_80" ? tma : 0) << arch;
    EXPECT_EQ(others_skipped_beyond_code, 0) << arch;
  }
}

// A grid refused on the largest supported GPU is refused on every GPU: that check needs none.
TEST(Capability, LargestSupportedGpuBoundsTheGrid) {
  using namespace pk::transfer;
  GridOptions o;
  o.preset = "smoke";
  o.mechanisms = "reg";
  o.knob_lists["sms"] = std::to_string(largest_supported_gpu().sm_count);
  EXPECT_NO_THROW(build_grid(o, largest_supported_gpu(), 0));
  EXPECT_THROW(build_grid(o, arch_gpu("sm_90a"), 0), ArgError);
  o.knob_lists["sms"] = std::to_string(largest_supported_gpu().sm_count + 1);
  EXPECT_THROW(build_grid(o, largest_supported_gpu(), 0), ArgError);
}
