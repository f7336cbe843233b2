// Sequence parallelism, the ring KV pass, GPU (label gpu; each test skips with the reason where
// it cannot run): every schedule of seqpar_list.h (inter_sm at two SM splits) at two S and two
// head counts, timed and then checked on a final pass with fresh inputs (the block each rank
// holds bit for bit against its source, the stand-in's output against the exact host
// reference): on virtual ranks of one GPU ($PKBENCH_VIRTUAL_RANKS: ctest runs 2, 3, 4 and 8),
// on the GPUs of one process (2 or more), one process per GPU under mpirun (ipc, vmm). NCCL's rows
// skip where NCCL cannot run (virtual ranks).
// A pass whose pull never finds its neighbour ends with a timeout, not a hang.
#include <gtest/gtest.h>

#include <memory>

#include "microbench/harness/cuda_check.h"
#include "microbench/harness/gpu_test_support.h"
#include "microbench/seqpar/ring.h"

using namespace pk;
using namespace pk::seqpar;

// The communicator of this test process (tests/gpu/gpu_main.cpp).
pk::Comm& test_comm();

namespace {

std::string mode_param_name(const ::testing::TestParamInfo<PeerMode>& i) { return peer_mode_name(i.param); }


std::string need(PeerMode m) {
  if (std::string why = need_peers(m); !why.empty()) return why;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major != 9) return std::string("the stand-in is the Hopper GEMM (sm_90a); GPU 0 is ") + prop.name;
  return "";
}

RingOptions test_options(double timeout_ms) {
  RingOptions o;
  o.shape.batch = 2;
  o.shape.head_dim = 128;
  o.timing = quick_test_timing(timeout_ms);
  return o;
}

std::vector<Point> test_points() {
  std::vector<Point> pts;
  for (int heads : {1, 3})
    for (int seq : {256, 768})
      for (const ImplInfo& i : impl_infos()) {
        if (i.takes_sms)
          for (int sms : {1, 3}) pts.push_back({i.name, seq, heads, sms});
        else
          pts.push_back({i.name, seq, heads, 0});
      }
  return pts;
}

class RingRanks : public ::testing::TestWithParam<PeerMode> {};

}  // namespace

TEST_P(RingRanks, EveryScheduleHoldsTheRightBlockAndComputesTheRightProducts) {
  if (const std::string why = need(GetParam()); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), GetParam());
  const std::vector<Point> pts = test_points();
  Context ctx(group, test_options(5000), pts);
  PointResults results;
  Runner runner(ctx, results);
  int ran = 0;
  for (const Point& p : pts) {
    Row row = Runner::describe(p, ctx.shape, group.processes());
    try {
      runner.measure(p, row);
    } catch (const SkipPoint& e) {
      EXPECT_EQ(p.impl, "nccl_side") << p.name() << ": " << e.what();
      continue;
    } catch (const std::exception& e) {
      ADD_FAILURE() << p.name() << ": " << e.what();
      continue;
    }
    EXPECT_EQ(row["verified"], "yes") << p.name();
    EXPECT_EQ(row["wrong_kv"], "0") << p.name();
    EXPECT_EQ(row["wrong_out"], "0") << p.name();
    EXPECT_FALSE(row["step_us_median"].empty()) << p.name();
    ++ran;
  }
  EXPECT_GE(ran, int(pts.size()) - 4);  // all but NCCL's four where it cannot run
}

// A checker that sees a stale block: the last ring buffer poisoned after a good pass fails.
TEST_P(RingRanks, CheckCatchesABlockThatDidNotArrive) {
  if (const std::string why = need(GetParam()); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), GetParam());
  const Point p{"sequential", 256, 1, 0};
  Context ctx(group, test_options(5000), {p});
  ctx.use_point(p);
  std::unique_ptr<Impl> impl = make_impl(ctx, p);
  ctx.fill(1);
  ctx.poison();
  impl->enqueue();
  ctx.sync_local();
  EXPECT_TRUE(check_pass(ctx, p, 1).ok());
  for (int gpu : ctx.local_gpus()) {
    group.set_device(gpu);
    PK_CUDA_CHECK(cudaMemset(ctx.ring_buffer(gpu, gpu, (ctx.ranks() - 1) % 2) + 64, 0x7F, 2));
  }
  ctx.sync_local();
  const Checked bad = check_pass(ctx, p, 1);
  EXPECT_EQ(bad.wrong_kv, double(group.size()));
}

// Rank 0's neighbours never pull: its pull times out and reports, nothing hangs.
TEST(RingTimeout, APullWhoseNeighboursNeverArriveEndsWithATimeout) {
  if (launched_under_mpi()) GTEST_SKIP() << "virtual ranks: one process";
  if (const std::string why = need(PeerMode::virt); !why.empty()) GTEST_SKIP() << why;
  PeerGroup group(test_comm(), PeerMode::virt);
  const Point p{"copy_only", 256, 1, 0};
  Context ctx(group, test_options(200), {p});
  ctx.use_point(p);
  enqueue_pull(ctx, ctx.local_gpus().front(), 1 << 20, 1);
  EXPECT_THROW(ctx.sync_local(), DeviceFailure);
}

INSTANTIATE_TEST_SUITE_P(PeerModes, RingRanks, ::testing::ValuesIn(test_modes()), mode_param_name);
