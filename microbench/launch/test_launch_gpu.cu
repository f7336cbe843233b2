// The launch study, GPU (label gpu; each test skips with the reason where it cannot run): every
// variant at a few kernel counts and grids, timed and then checked (each GPU's counter grew by
// exactly kernels x blocks on a final operation from new start values), on one GPU, on virtual
// ranks sharing it ($PKBENCH_VIRTUAL_RANKS: ctest runs 2, 3, 4 and 8), on the GPUs of one process,
// and one process per GPU under mpirun (ipc, vmm).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gpu_test_support.h"
#include "microbench/launch/launch.h"

using namespace pk;
using namespace pk::launch;

// The communicator of this test process (tests/gpu/gpu_main.cpp).
pk::Comm& test_comm();

namespace {

std::string mode_param_name(const ::testing::TestParamInfo<PeerMode>& i) { return peer_mode_name(i.param); }

LaunchOptions test_options() {
  LaunchOptions o;
  o.timing = quick_test_timing(5000);
  return o;
}

std::vector<Point> test_points() {
  std::vector<Point> pts;
  for (int blocks : {1, 3, 0})
    for (int kernels : {1, 5})
      for (const VariantInfo& v : variant_infos()) pts.push_back({v.name, kernels, blocks});
  return pts;
}

// Every point measured and checked on `group`: each row verified, its count kernels x blocks, its
// times filled.
void expect_every_point_verifies(PeerGroup& group, const std::vector<Point>& pts) {
  Context ctx(group, test_options(), pts);
  PointResults results;
  Runner runner(ctx, results);
  for (const Point& p : pts) {
    Row row = Runner::describe(p, group.processes());
    try {
      runner.measure(p, row);
    } catch (const SkipPoint& e) {  // PDL below sm_90: said, not failed; any other skip hides a failure
      const GpuInfo& g = group.topology().gpus.at(group.local_gpus().front());
      if (variant_info(p.variant).pdl && g.cc_major < 9) std::printf("%s skipped: %s\n", p.name().c_str(), e.what());
      else ADD_FAILURE() << p.name() << " skipped: " << e.what();
      continue;
    } catch (const std::exception& e) {
      ADD_FAILURE() << p.name() << ": " << e.what();
      continue;
    }
    EXPECT_EQ(row["verified"], "yes") << p.name();
    const int blocks = p.blocks ? p.blocks : group.sm_budget(group.local_gpus().front());
    EXPECT_EQ(row["counted"], std::to_string(p.kernels * blocks)) << p.name();
    EXPECT_FALSE(row["us_per_kernel_median"].empty()) << p.name();
    EXPECT_FALSE(row["host_us_per_call"].empty()) << p.name();
  }
}

// single needs two GPUs in one process; one GPU runs alone as a one-rank virtual group would not.
class LaunchRanks : public ::testing::TestWithParam<PeerMode> {};

}  // namespace

TEST_P(LaunchRanks, EveryVariantLaunchesEveryBlockOfEveryKernel) {
  if (const std::string why = need_peers(GetParam()); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), GetParam());
  expect_every_point_verifies(group, test_points());
}

namespace {

// The point's launches with the last kernel one block short, made of two real cases on the same
// streams (kernels - 1 full kernels, then one of blocks - 1): what a launch path that dropped a
// block would leave behind. Needs 2 kernels and an explicit grid of 2 blocks at least (blocks 0
// is one per SM; 1 less would be that full grid).
class OneBlockShort : public Case {
 public:
  OneBlockShort(Context& c, const Point& p)
      : Case(c),
        full_(make_case(c, Point{p.variant, needs_two(p.kernels) - 1, p.blocks})),
        last_(make_case(c, Point{p.variant, 1, needs_two(p.blocks) - 1})) {}
  void enqueue() override {
    full_->enqueue();
    last_->enqueue();
  }
  int enqueues_per_op() const override { return full_->enqueues_per_op() + last_->enqueues_per_op(); }
  void reset_host_time() override {}
  double host_seconds() const override { return 0; }
  long long calls() const override { return 0; }

 private:
  static int needs_two(int n) {
    if (n < 2) throw std::logic_error("OneBlockShort needs 2 kernels and 2 blocks at least");
    return n;
  }
  std::unique_ptr<Case> full_, last_;
};

}  // namespace

// The check passes the real launches and catches a block that never ran, on every rank, naming
// the GPU and both counts.
TEST_P(LaunchRanks, CheckCatchesAMissingBlock) {
  if (const std::string why = need_peers(GetParam()); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), GetParam());
  const Point p{"stream", 3, 2};
  Context ctx(group, test_options(), {p});
  std::unique_ptr<Case> k = make_case(ctx, p);  // every GPU with this build's code launches on a stream
  EXPECT_TRUE(run_and_count(ctx, *k, p, 7).ok);
  OneBlockShort shorted(ctx, p);
  const Counted bad = run_and_count(ctx, shorted, p, 8);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.counted, 5u);
  EXPECT_EQ(bad.expected, 6u);
  EXPECT_NE(bad.first.find("counted 5 blocks, not 6"), std::string::npos) << bad.first;
}

// One GPU alone (no peers needed): the smallest run a user makes.
TEST(LaunchOneGpu, TheDefaultPresetsFirstPointsVerify) {
  if (launched_under_mpi()) GTEST_SKIP() << "one process";
  if (const std::string why = no_gpu_reason(); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), PeerMode::single, 0, 1);
  expect_every_point_verifies(group, plan_points(preset("smoke"), {}));
}

INSTANTIATE_TEST_SUITE_P(PeerModes, LaunchRanks, ::testing::ValuesIn(test_modes()), mode_param_name);
