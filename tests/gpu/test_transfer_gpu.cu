// Every transfer mechanism moves exactly the right bytes: odd message sizes and offsets,
// between two GPUs when there are two (else locally), and nothing outside the region.
#include <gtest/gtest.h>

#include <chrono>

#include "gpu_test_util.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/device_runtime.h"
#include "microbench/harness/peer_group.h"
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
  int vec = 0, unroll = 0, depth = 0, threads = 0;
};

class TransferGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    PK_REQUIRE_GPU();
    topo_ = discover_topology();
    group_ = make_single_process_group(topo_);
    src_gpu_ = 0;
    dst_gpu_ = topo_.count() > 1 && topo_.can_access(0, 1) && topo_.can_access(1, 0) ? 1 : 0;
    src_ = static_cast<char*>(group_->alloc(src_gpu_, kBuf));
    dst_ = static_cast<char*>(group_->alloc(dst_gpu_, kBuf));
    fill_pattern(src_gpu_, src_, kBuf, 77, 0);
    PK_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Runs one operation and checks the region bitwise and the guard bytes around it.
  void run(const Case& c, const std::string& direction) {
    SCOPED_TRACE(c.mech + " " + direction + " msg=" + std::to_string(c.msg) + " ops=" + std::to_string(c.ops) +
                 " src_off=" + std::to_string(c.src_offset) + " dst_off=" + std::to_string(c.dst_offset));
    const Mechanism& m = mechanism(c.mech);
    TransferPoint p;
    p.mechanism = c.mech;
    p.direction = direction;
    p.message_bytes = c.msg;
    p.total_bytes = c.msg * c.ops;
    p.vec_bytes = c.vec;
    p.unroll = c.unroll;
    p.depth = c.depth;
    p.threads = c.threads;
    p.sms = 7;  // an odd number of blocks, fewer than messages
    const int issuer = direction == "push" ? src_gpu_ : dst_gpu_;
    if (c.mech == "ce") p.sms = 0;
    m.resolve(p, topo_.gpus[issuer]);
    FlowBuffers b;
    b.src_gpu = src_gpu_;
    b.dst_gpu = dst_gpu_;
    b.issuer = issuer;
    b.src_buf = src_;
    b.src_buf_bytes = kBuf;
    b.dst_buf = dst_;
    b.dst_buf_bytes = kBuf;
    b.src_offset = c.src_offset;
    b.dst_offset = c.dst_offset;
    b.bytes_per_op = c.msg * c.ops;
    b.ops = c.ops;
    b.sms = p.sms;
    b.deadline = status_.deadline(issuer, 2000);
    PK_CUDA_CHECK(cudaSetDevice(dst_gpu_));
    PK_CUDA_CHECK(cudaMemset(dst_, kPoison, kBuf));
    PK_CUDA_CHECK(cudaDeviceSynchronize());
    PK_CUDA_CHECK(cudaSetDevice(issuer));
    auto op = m.prepare(p, b, topo_.gpus[issuer]);
    cudaStream_t s = streams_.get(issuer, 0);
    op->enqueue(s, 0);
    PK_CUDA_CHECK(cudaStreamSynchronize(s));
    status_.check({issuer});
    PatternCheck r = check_pattern(dst_gpu_, dst_ + c.dst_offset, b.bytes_per_op, 77, c.src_offset);
    EXPECT_EQ(r.mismatched_words, 0u) << "first bad byte " << r.first_bad_byte;
    // Guards: the 4 KiB before and after the region still hold the poison.
    std::vector<unsigned char> guard(4096);
    const uint64_t before = std::min<uint64_t>(4096, c.dst_offset);
    PK_CUDA_CHECK(cudaMemcpy(guard.data(), dst_ + c.dst_offset - before, before, cudaMemcpyDeviceToHost));
    for (uint64_t i = 0; i < before; ++i) ASSERT_EQ(guard[i], kPoison) << "byte " << i << " before the region";
    PK_CUDA_CHECK(cudaMemcpy(guard.data(), dst_ + c.dst_offset + b.bytes_per_op, 4096, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4096; ++i) ASSERT_EQ(guard[i], kPoison) << "byte " << i << " after the region";
  }

  Topology topo_;
  std::unique_ptr<PeerGroup> group_;
  StatusBoard status_;
  StreamPool streams_;
  int src_gpu_ = 0, dst_gpu_ = 0;
  char* src_ = nullptr;
  char* dst_ = nullptr;
};

TEST_F(TransferGpu, CopyEngineOddSizesAndOffsets) {
  for (const char* dir : {"push", "pull"}) {
    run({"ce", 48, 37, 16, 4096 + 32}, dir);
    run({"ce", 1 << 20, 3, 0, 16}, dir);
  }
}

TEST_F(TransferGpu, TmaBulkOddSizesAndOffsets) {
  for (const char* dir : {"push", "pull"}) {
    run({"tma_bulk", 16, 1001, 48, 16}, dir);
    run({"tma_bulk", 4112, 333, 4096 + 16, 80, 0, 0, 3, 96}, dir);  // 3 warps, 3 stages
    run({"tma_bulk", 200 * 1024, 5, 16, 32, 0, 0, 1, 32}, dir);    // one stage near the smem limit
  }
}

TEST_F(TransferGpu, TmaTileShapes) {
  // Tiles address whole 16 KiB rows, so offsets are row multiples; shapes vary.
  for (const char* dir : {"push", "pull"}) {
    run({"tma_tile", 32, 2048, 16384, 3 * 16384}, dir);           // 16 x 1 box
    run({"tma_tile", 1536, 64 * 3, 0, 16384}, dir);               // 256 x 3 box
    run({"tma_tile", 128 * 1024, 32, 5 * 16384, 7 * 16384, 0, 0, 1, 32}, dir);  // 256 x 256 box: 4 MiB bands
  }
}

TEST_F(TransferGpu, RegisterEveryWidthAndUnroll) {
  for (const char* dir : {"push", "pull"})
    for (int vec : {4, 8, 16})
      for (int unroll : {1, 2, 4, 8}) run({"reg", 48 * 7, 129, 16 * 3, 16 * 5, vec, unroll, 0, 96}, dir);
  for (const char* dir : {"push", "pull"})
    for (int unroll : {1, 2, 4, 8}) run({"reg_l2hint", 48 * 7, 129, 16 * 3, 16 * 5, 16, unroll, 0, 96}, dir);
}

TEST(SpinWaitGpu, TimeoutFiresOnAForcedHang) {
  PK_REQUIRE_GPU();
  StatusBoard status;
  Gate gate;
  PK_CUDA_CHECK(cudaSetDevice(0));
  cudaStream_t s;
  PK_CUDA_CHECK(cudaStreamCreate(&s));
  const auto t0 = std::chrono::steady_clock::now();
  gate.arm(s, status.deadline(0, 50));  // nobody opens the gate
  PK_CUDA_CHECK(cudaStreamSynchronize(s));
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  try {
    status.check({0});
    FAIL() << "the hung wait did not report a timeout";
  } catch (const DeviceFailure& e) {
    EXPECT_NE(std::string(e.what()).find("timeout waiting for start gate"), std::string::npos) << e.what();
  }
  EXPECT_GE(ms, 45);
  EXPECT_LT(ms, 1000);
  status.check({0});  // cleared after reporting
  // The gate itself opens when told to.
  gate.arm(s, status.deadline(0, 2000));
  gate.open();
  PK_CUDA_CHECK(cudaStreamSynchronize(s));
  EXPECT_NO_THROW(status.check({0}));
  cudaStreamDestroy(s);
}

}  // namespace
