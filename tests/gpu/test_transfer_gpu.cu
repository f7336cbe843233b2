// Every transfer mechanism moves exactly the right bytes in every peer mode: odd message
// sizes and offsets, both directions, between two GPUs when there are two (else locally),
// and nothing outside the region. Under mpirun the issuing and the owning GPU belong to
// different processes, so this checks the IPC and VMM mappings end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>

#include "tests/gpu/gpu_test_util.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/timing.h"
#include "microbench/harness/topology.h"
#include "microbench/transfer/mechanism.h"

using namespace pk;
using namespace pk::transfer;

namespace {

constexpr uint64_t kBuf = 64ull << 20;
constexpr unsigned char kPoison = 0x5A;

struct Case {
  std::string mech;
  uint64_t msg;
  uint64_t ops;
  uint64_t src_offset, dst_offset;
  KnobValues knobs;
};

class TransferGpu : public ::testing::TestWithParam<PeerMode> {
 protected:
  void SetUp() override {
    PK_REQUIRE_GPU();
    group_ = std::make_unique<PeerGroup>(test_comm(), GetParam());
    status_ = std::make_unique<StatusBoard>(*group_);
    streams_ = std::make_unique<StreamPool>(*group_);
    const Topology& t = group_->topology();
    dst_gpu_ = t.count() > 1 && t.can_access(0, 1) && t.can_access(1, 0) ? 1 : 0;
    src_ = group_->alloc(kBuf, "test source");
    dst_ = group_->alloc(kBuf, "test destination");
    if (group_->drives(src_gpu_)) {
      group_->set_device(src_gpu_);
      fill_pattern(src_.local(src_gpu_), kBuf, 77, 0);
      PK_CUDA_CHECK(cudaDeviceSynchronize());
    }
    group_->barrier();
  }
  void TearDown() override {
    streams_.reset();
    status_.reset();
    group_.reset();
  }

  // Runs one operation and checks the region bitwise and the guard bytes around it, in the
  // process that owns the destination.
  void run(const Case& c, const std::string& direction) {
    SCOPED_TRACE(c.mech + " " + direction + " msg=" + std::to_string(c.msg) + " ops=" + std::to_string(c.ops) +
                 " src_off=" + std::to_string(c.src_offset) + " dst_off=" + std::to_string(c.dst_offset) + " mode " +
                 group_->mode_name());
    const Mechanism& m = mechanism(c.mech);
    TransferPoint p;
    p.mechanism = c.mech;
    p.direction = direction;
    p.message_bytes = c.msg;
    p.total_bytes = c.msg * c.ops;
    p.knobs = c.knobs;
    if (m.uses_sms()) p.knobs["sms"] = 7;  // an odd number of blocks, fewer than messages
    const int issuer = direction == "push" ? src_gpu_ : dst_gpu_;
    m.resolve(p, group_->topology().gpus[issuer]);
    std::string err;
    try {
      if (group_->drives(dst_gpu_)) {
        group_->set_device(dst_gpu_);
        PK_CUDA_CHECK(cudaMemset(dst_.local(dst_gpu_), kPoison, kBuf));
        PK_CUDA_CHECK(cudaDeviceSynchronize());
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
    group_->barrier();
    try {
      if (err.empty() && group_->drives(issuer)) {
        FlowBuffers b;
        b.src_gpu = src_gpu_;
        b.dst_gpu = dst_gpu_;
        b.issuer = issuer;
        b.src_buf = src_.at(issuer, src_gpu_);
        b.src_buf_bytes = kBuf;
        b.dst_buf = dst_.at(issuer, dst_gpu_);
        b.dst_buf_bytes = kBuf;
        b.src_offset = c.src_offset;
        b.dst_offset = c.dst_offset;
        b.bytes_per_op = c.msg * c.ops;
        b.ops = c.ops;
        b.sms = p.sms();
        b.deadline = status_->deadline(issuer, 2000);
        group_->set_device(issuer);
        auto op = m.prepare(p, b, group_->topology().gpus[issuer]);
        cudaStream_t s = streams_->get(issuer, 0);
        op->enqueue(s, 0);
        PK_CUDA_CHECK(cudaStreamSynchronize(s));
        status_->check({issuer});
      }
    } catch (const std::exception& e) {
      err = e.what();
    }
    err = agreed(err);
    ASSERT_EQ(err, "");
    std::string bad;
    if (group_->drives(dst_gpu_)) {
      group_->set_device(dst_gpu_);
      char* dst = dst_.local(dst_gpu_);
      const uint64_t bytes = c.msg * c.ops;
      PatternCheck r = check_pattern(dst + c.dst_offset, bytes, 77, c.src_offset);
      if (r.mismatched_words)
        bad = std::to_string(r.mismatched_words) + " words differ, first at byte " + std::to_string(r.first_bad_byte);
      // Guards: the 4 KiB before and after the region still hold the poison.
      std::vector<unsigned char> guard(4096);
      const uint64_t before = std::min<uint64_t>(4096, c.dst_offset);
      PK_CUDA_CHECK(cudaMemcpy(guard.data(), dst + c.dst_offset - before, before, cudaMemcpyDeviceToHost));
      for (uint64_t i = 0; i < before && bad.empty(); ++i)
        if (guard[i] != kPoison) bad = "byte " + std::to_string(i) + " before the region was written";
      PK_CUDA_CHECK(cudaMemcpy(guard.data(), dst + c.dst_offset + bytes, 4096, cudaMemcpyDeviceToHost));
      for (int i = 0; i < 4096 && bad.empty(); ++i)
        if (guard[i] != kPoison) bad = "byte " + std::to_string(i) + " after the region was written";
    }
    EXPECT_EQ(agreed(bad), "");
  }

  std::unique_ptr<PeerGroup> group_;
  std::unique_ptr<StatusBoard> status_;
  std::unique_ptr<StreamPool> streams_;
  int src_gpu_ = 0, dst_gpu_ = 0;
  SymBuf src_, dst_;
};

// Every registered mechanism (mechanism_list.h) at the message size it gets when asked by
// name (16 KiB), an odd number of its operation granules and one, at offsets every mechanism
// addresses (whole 16 KiB rows for the tiles), both directions.
TEST_P(TransferGpu, EveryRegisteredMechanismMovesItsDefaultPoint) {
  constexpr uint64_t kMsg = 16384;
  for (const Mechanism* m : mechanisms()) {
    TransferPoint p;
    p.mechanism = m->name();
    p.message_bytes = p.total_bytes = kMsg;
    m->resolve(p, group_->topology().gpus[0]);
    const uint64_t unit = std::max<uint64_t>(1, m->op_granule(p) / kMsg);  // tma_tile: whole tile rows
    for (const char* dir : {"push", "pull"}) {
      run({m->name(), kMsg, 5 * unit, kMsg, 2 * kMsg, {}}, dir);
      run({m->name(), kMsg, unit, 0, kMsg, {}}, dir);
    }
  }
}

TEST_P(TransferGpu, CopyEngineOddSizesAndOffsets) {
  for (const char* mech : {"ce", "ce_batch"})
    for (const char* dir : {"push", "pull"}) {
      run({mech, 48, 37, 16, 4096 + 32, {}}, dir);
      run({mech, 1 << 20, 3, 0, 16, {}}, dir);
    }
}

TEST_P(TransferGpu, TmaBulkOddSizesAndOffsets) {
  for (const char* dir : {"push", "pull"}) {
    run({"tma_bulk", 16, 1001, 48, 16, {}}, dir);
    run({"tma_bulk", 4112, 333, 4096 + 16, 80, {{"pipeline_depth", 3}, {"threads", 96}}}, dir);  // 3 warps, 3 stages
    run({"tma_bulk", 200 * 1024, 5, 16, 32, {{"pipeline_depth", 1}, {"threads", 32}}}, dir);  // near the smem limit
  }
}

TEST_P(TransferGpu, TmaTileShapes) {
  // Tiles address whole 16 KiB rows, so offsets are row multiples; shapes vary.
  for (const char* dir : {"push", "pull"}) {
    run({"tma_tile", 32, 2048, 16384, 3 * 16384, {}}, dir);  // 16 x 1 box
    run({"tma_tile", 1536, 64 * 3, 0, 16384, {}}, dir);      // 256 x 3 box
    run({"tma_tile", 128 * 1024, 32, 5 * 16384, 7 * 16384, {{"pipeline_depth", 1}, {"threads", 32}}}, dir);
  }
}

TEST_P(TransferGpu, RegisterEveryWidthAndUnroll) {
  for (const char* dir : {"push", "pull"})
    for (int vec : {4, 8, 16})
      for (int unroll : {1, 2, 4, 8})
        run({"reg", 48 * 7, 129, 16 * 3, 16 * 5, {{"vec_bytes", vec}, {"unroll", unroll}, {"threads", 96}}}, dir);
  for (const char* dir : {"push", "pull"})
    for (int unroll : {1, 2, 4, 8})
      run({"reg_l2hint", 48 * 7, 129, 16 * 3, 16 * 5, {{"vec_bytes", 16}, {"unroll", unroll}, {"threads", 96}}}, dir);
}

// The transfer study's copy-engine samples (one cudaMemcpyAsync per message, each GPU copying
// within its own memory): taken with the next queued behind its closed gate while one runs
// (FlowTimer::samples), they time what samples one at a time time and copy the right bytes;
// and the warm-up stops after one run exactly where a second could not change the count
// (here: a queue budget of one operation).
TEST_P(TransferGpu, CopyEngineSamplesQueuedBehindTheirGateTimeWhatOneAtATimeTimes) {
  constexpr uint64_t kMsg = 4096, kMsgs = 256;
  Gate gate(*group_);
  for (int g : group_->local_gpus()) {
    group_->set_device(g);
    fill_pattern(src_.local(g), kMsg * kMsgs, 77, 0);
    PK_CUDA_CHECK(cudaMemset(dst_.local(g), kPoison, kMsg * kMsgs));
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  auto make_timer = [&](int enqueues_per_op) {
    std::vector<Flow> flows;
    for (int g : group_->local_gpus()) {
      cudaStream_t s = streams_->get(g, 1);
      const char* src = src_.local(g);
      char* dst = dst_.local(g);
      flows.push_back(Flow{g, g, s, enqueues_per_op, [=](int) {
                             for (uint64_t i = 0; i < kMsgs; ++i)
                               PK_CUDA_CHECK(cudaMemcpyAsync(dst + i * kMsg, src + i * kMsg, kMsg,
                                                             cudaMemcpyDeviceToDevice, s));
                           }});
    }
    TimingOptions opt;
    opt.warmup_ms = 0;  // the time is no reason to go on: only the run count decides
    return std::make_unique<FlowTimer>(*group_, flows, group_->size(), gate, *status_, opt);
  };
  {
    auto t = make_timer(512);  // a budget of one operation: one warm-up run
    EXPECT_EQ(t->calibrate(), 1);
    EXPECT_EQ(t->ops_run(), 1);
  }
  auto t = make_timer(static_cast<int>(kMsgs));
  const int k = t->calibrate();
  // Two runs where a second could change the count: one operation under 4 ms (twice the 2 ms
  // target), which a tool's slowdown may break.
  if (!slowed_by_a_tool()) EXPECT_EQ(t->ops_run(), 2);
  EXPECT_GE(k, 1);
  EXPECT_LE(k, 2);             // the queue's budget: 512 calls
  const int warm = t->ops_run();
  const std::vector<Sample> one = t->samples(6, false), overlapped = t->samples(6, true);
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(overlapped.size(), 6u);
  EXPECT_EQ(t->ops_run(), warm + 12 * k);
  auto median = [](const std::vector<Sample>& v) {
    std::vector<double> ms;
    for (const Sample& s : v) ms.push_back(s.step_ms_per_op);
    std::sort(ms.begin(), ms.end());
    return 0.5 * (ms[2] + ms[3]);
  };
  // Under a sanitizer the spans time the tool's instrumentation, not the copies.
  if (!slowed_by_a_tool()) EXPECT_NEAR(median(overlapped), median(one), 0.1 * median(one));
  std::string err;
  for (int g : group_->local_gpus()) {
    group_->set_device(g);
    const PatternCheck c = check_pattern(dst_.local(g), kMsg * kMsgs, 77, 0);
    if (c.mismatched_words) err = "GPU" + std::to_string(g) + ": " + std::to_string(c.mismatched_words) + " words differ";
  }
  EXPECT_EQ(agreed(err), "");
}

// TimingOptions::ungated_first_run: the warm-up's first operation is queued on a stream that
// nothing holds (a library may load its kernels at that launch, which a spinning gate would
// block until its deadline); the runs after it wait behind the gate as every sample does.
TEST_P(TransferGpu, UngatedFirstRunHasNoGateAheadOfItAndLaterRunsDo) {
  Gate gate(*group_);
  std::map<int, std::vector<cudaError_t>> seen;  // per GPU, per operation: its stream when it was queued
  std::vector<Flow> flows;
  for (int g : group_->local_gpus()) {
    cudaStream_t s = streams_->get(g, 1);
    char* dst = dst_.local(g);
    flows.push_back(Flow{g, g, s, 1, [&seen, g, s, dst](int op) {
                           cudaError_t e = cudaStreamQuery(s);
                           // The first: drained within the hang catcher's time unless something
                           // holds it (the gate's own deadline, below, is longer).
                           const auto t0 = std::chrono::steady_clock::now();
                           while (op == 0 && e == cudaErrorNotReady &&
                                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                                          .count() < timeout_hang_catcher_ms())
                             e = cudaStreamQuery(s);
                           (void)cudaGetLastError();  // a not-ready answer is no error of the next launch
                           seen[g].push_back(e);
                           PK_CUDA_CHECK(cudaMemsetAsync(dst, 0, 4096, s));
                         }});
  }
  TimingOptions opt;
  opt.warmup_ms = 0;
  opt.warmup_runs = 2;
  opt.target_sample_ms = 1e9;  // no one-run stop, however long a run takes (a sanitizer's)
  opt.ungated_first_run = true;
  opt.timeout_ms = 3 * timeout_hang_catcher_ms() / deadline_scale();  // a held first run fails on the host first
  FlowTimer t(*group_, flows, group_->size(), gate, *status_, opt);
  std::string err;
  try {
    t.calibrate();
  } catch (const std::exception& e) {
    err = e.what();
  }
  EXPECT_EQ(t.ops_run(), 2);
  for (int g : group_->local_gpus()) {
    const std::vector<cudaError_t>& v = seen[g];
    if (v.size() != 2) err += " GPU" + std::to_string(g) + ": " + std::to_string(v.size()) + " operations queued";
    else if (v[0] != cudaSuccess) err += " GPU" + std::to_string(g) + ": the first run's stream was held";
    else if (v[1] != cudaErrorNotReady) err += " GPU" + std::to_string(g) + ": the second run had no gate ahead of it";
  }
  EXPECT_EQ(agreed(err), "");
}

INSTANTIATE_TEST_SUITE_P(PeerModes, TransferGpu, ::testing::ValuesIn(test_modes()), mode_param_name);

class GateGpu : public ::testing::TestWithParam<PeerMode> {};

TEST_P(GateGpu, TimeoutFiresOnAForcedHangAndOpenReleasesEveryGpu) {
  PK_REQUIRE_GPU();
  PeerGroup group(test_comm(), GetParam());
  StatusBoard status(group);
  StreamPool streams(group);
  Gate gate(group);
  const auto t0 = std::chrono::steady_clock::now();
  for (int g : group.local_gpus()) gate.arm(g, streams.get(g, 0), status.deadline(g, 50));  // nobody opens
  std::string err;
  for (int g : group.local_gpus()) {
    group.set_device(g);
    PK_CUDA_CHECK(cudaStreamSynchronize(streams.get(g, 0)));
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  try {
    status.check(group.local_gpus());
    err = "the hung wait did not report a timeout";
  } catch (const DeviceFailure& e) {
    if (std::string(e.what()).find("timeout waiting for start gate") == std::string::npos) err = e.what();
  }
  EXPECT_EQ(agreed(err), "");
  EXPECT_GE(ms, 45);
  EXPECT_LT(ms, timeout_hang_catcher_ms());
  // Cleared after reporting; and the gate opens every GPU of every process when told to.
  EXPECT_NO_THROW(status.check(group.local_gpus()));
  for (int g : group.local_gpus()) gate.arm(g, streams.get(g, 0), status.deadline(g, 2000));
  gate.open();
  err.clear();
  try {
    for (int g : group.local_gpus()) {
      group.set_device(g);
      PK_CUDA_CHECK(cudaStreamSynchronize(streams.get(g, 0)));
    }
    status.check(group.local_gpus());
  } catch (const std::exception& e) {
    err = e.what();
  }
  EXPECT_EQ(agreed(err), "");
}

INSTANTIATE_TEST_SUITE_P(PeerModes, GateGpu, ::testing::ValuesIn(test_modes()), mode_param_name);

}  // namespace
