// One process per GPU without a GPU: what the ranks exchange. Run under `mpirun -np 2` in
// CI (label cpu); alone, the tests that need two ranks skip. Covers the communicator,
// failure agreement, file-descriptor passing (the VMM path, with ordinary memfds), handle
// exchange (the IPC path, with fake handles), the group topology and symmetric tables.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "microbench/harness/comm.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/fd_passing.h"
#include "microbench/harness/peer_group.h"

using namespace pk;

namespace {
std::unique_ptr<Comm> g_comm;

#define PK_REQUIRE_RANKS(n)                                                                        \
  do {                                                                                             \
    if (g_comm->size() < (n)) GTEST_SKIP() << "needs " << (n) << " ranks: run under mpirun -np " << (n); \
  } while (0)

TEST(Comm, AllgatherBroadcastAndMax) {
  const int r = g_comm->rank(), n = g_comm->size();
  std::vector<int> all(n, -1);
  g_comm->allgather(&r, all.data(), sizeof r);
  for (int i = 0; i < n; ++i) EXPECT_EQ(all[i], i);
  EXPECT_EQ(g_comm->max(r), n - 1);
  EXPECT_EQ(g_comm->min(r), 0);
  // Strings of different lengths from every rank.
  const auto s = g_comm->allgather_strings(std::string(r * 3 + 1, 'a' + r));
  ASSERT_EQ(static_cast<int>(s.size()), n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(s[i], std::string(i * 3 + 1, 'a' + i));
  EXPECT_EQ(g_comm->broadcast_string(r == 0 ? "from zero" : "", 0), "from zero");
  EXPECT_EQ(g_comm->broadcast_doubles(r == 0 ? std::vector<double>{1.5, 2.5} : std::vector<double>{}, 0),
            (std::vector<double>{1.5, 2.5}));
}

TEST(Comm, EveryRankLearnsTheFirstFailureWithItsKind) {
  PK_REQUIRE_RANKS(2);
  const int last = g_comm->size() - 1;
  EXPECT_EQ(g_comm->first_error(""), "");
  EXPECT_EQ(g_comm->first_error(g_comm->rank() == last ? "boom" : ""), "rank " + std::to_string(last) + ": boom");
  // A skip on one rank is a skip on all; any other failure is an error on all.
  EXPECT_THROW(collectively(*g_comm, [&] { if (g_comm->rank() == last) throw SkipPoint("no peer"); }), SkipPoint);
  try {
    collectively(*g_comm, [&] { if (g_comm->rank() == last) throw std::runtime_error("bad pointer"); });
    FAIL() << "no throw";
  } catch (const SkipPoint&) {
    FAIL() << "wrong kind";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(last) + ": bad pointer");
  }
  EXPECT_NO_THROW(collectively(*g_comm, [] {}));
}

TEST(FdPassing, EveryRankReceivesEveryOtherRanksDescriptor) {
  PK_REQUIRE_RANKS(2);
  const int me = g_comm->local_rank();
  std::string prefix = g_comm->rank() == 0 ? "pkbench-test." + std::to_string(getpid()) : "";
  prefix = g_comm->broadcast_string(prefix, 0);
  FdChannel ch(prefix, me);
  g_comm->barrier();
  std::vector<int> locals(g_comm->local_size());
  for (int i = 0; i < g_comm->local_size(); ++i) locals[i] = i;
  for (uint64_t round = 1; round <= 3; ++round) {  // several exchanges stay in step
    const std::string text = "rank " + std::to_string(me) + " round " + std::to_string(round);
    const int fd = memfd_create("pkbench-test", 0);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    std::vector<int> got = exchange_fds(*g_comm, ch, locals, me, fd, round);
    close(fd);
    for (int l = 0; l < g_comm->local_size(); ++l) {
      if (l == me) {
        EXPECT_EQ(got[l], -1);
        continue;
      }
      ASSERT_GE(got[l], 0) << "from local rank " << l;
      char buf[64] = {};
      ASSERT_GT(pread(got[l], buf, sizeof buf - 1, 0), 0);
      EXPECT_EQ(std::string(buf), "rank " + std::to_string(l) + " round " + std::to_string(round));
      close(got[l]);
    }
  }
}

TEST(IpcHandles, AllgatherDeliversEveryRanksOpaqueHandle) {
  struct FakeHandle {
    char bytes[64];
  };
  FakeHandle mine{};
  for (int i = 0; i < 64; ++i) mine.bytes[i] = static_cast<char>(g_comm->rank() * 64 + i);
  std::vector<FakeHandle> all(g_comm->size());
  g_comm->allgather(&mine, all.data(), sizeof mine);
  for (int r = 0; r < g_comm->size(); ++r)
    for (int i = 0; i < 64; ++i) ASSERT_EQ(all[r].bytes[i], static_cast<char>(r * 64 + i));
}

TEST(GroupTopology, GathersOneGpuPerRankAndRefusesTwoRanksOnOneGpu) {
  Topology local;
  GpuInfo g;
  g.ordinal = 0;
  g.name = "fake GPU " + std::to_string(g_comm->rank());
  g.pci_bus_id = "0000:0" + std::to_string(g_comm->rank()) + ":00.0";
  g.sm_count = 100 + g_comm->rank();
  local.gpus.push_back(g);  // one visible GPU per rank: no CUDA call is needed
  std::vector<int> ordinals;
  Topology t = gather_topology(*g_comm, local, 0, &ordinals);
  ASSERT_EQ(t.count(), g_comm->size());
  for (int r = 0; r < t.count(); ++r) {
    EXPECT_EQ(t.gpus[r].ordinal, r);
    EXPECT_EQ(t.gpus[r].sm_count, 100 + r);
    EXPECT_EQ(t.gpus[r].name, "fake GPU " + std::to_string(r));
    EXPECT_EQ(ordinals[r], 0);
    for (int q = 0; q < t.count(); ++q)
      if (q != r) EXPECT_TRUE(t.peer_access[r][q]) << "same node: assumed reachable";
  }
  if (g_comm->size() < 2) return;
  local.gpus[0].pci_bus_id = "0000:0a:00.0";  // every rank claims the same GPU
  EXPECT_THROW(gather_topology(*g_comm, local, 0, nullptr), ArgError);
}

}  // namespace

TEST(SymmetricTable, RowsBecomePeerTablesByValue) {
  SymBuf b(4096, 3);
  char* base = reinterpret_cast<char*>(0x10000);
  b.set_row(1, {base, base + 0x1000, base + 0x2000});
  PeerTable<int> t = b.table<int>(1, 64);
  EXPECT_EQ(t.self, 1);
  EXPECT_EQ(t.size, 3);
  EXPECT_EQ(reinterpret_cast<char*>(t.at[0]), base + 64);
  EXPECT_EQ(reinterpret_cast<char*>(t.local()), base + 0x1000 + 64);
  EXPECT_EQ(t.at[3], nullptr);
  EXPECT_EQ(b.local(1), base + 0x1000);
  EXPECT_EQ(b.at(1, 2), base + 0x2000);
  SymBuf c(4096, 2);
  c.set_row(0, {base, nullptr});
  EXPECT_THROW(c.at(0, 1), SkipPoint);        // unreachable peer: the point is skipped
  EXPECT_THROW(c.at(1, 0), std::logic_error);  // GPU1 is not driven by this process
  EXPECT_THROW(c.at(0, 5), ArgError);
  EXPECT_EQ(t.offset(2).at[0], t.at[0] + 2);
}

TEST(Granularity, SizesRoundUpToWholeGranules) {
  const uint64_t g = 2ull << 20;
  EXPECT_EQ(round_up_to_granularity(1, g), g);
  EXPECT_EQ(round_up_to_granularity(g, g), g);
  EXPECT_EQ(round_up_to_granularity(g + 1, g), 2 * g);
  EXPECT_EQ(round_up_to_granularity(0, g), g);
  EXPECT_EQ(round_up_to_granularity(1ull << 30, g), 1ull << 30);
  EXPECT_THROW(round_up_to_granularity(10, 0), std::invalid_argument);
}

TEST(PeerModes, ParseDefaultAndRefuseImpossibleLaunches) {
  EXPECT_EQ(parse_peer_mode("vmm"), PeerMode::vmm);
  EXPECT_THROW(parse_peer_mode("nvshmem"), ArgError);
  EXPECT_EQ(default_peer_mode(false), PeerMode::single);
  EXPECT_EQ(default_peer_mode(true), PeerMode::ipc);
  auto self = make_self_comm();
  EXPECT_NO_THROW(check_peer_mode(PeerMode::single, *self));
  EXPECT_THROW(check_peer_mode(PeerMode::ipc, *self), ArgError);  // needs mpirun
  if (g_comm->size() > 1) {
    EXPECT_THROW(check_peer_mode(PeerMode::single, *g_comm), ArgError);
    EXPECT_NO_THROW(check_peer_mode(PeerMode::vmm, *g_comm));
  }
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  g_comm = make_comm(&argc, &argv);
  int rc = RUN_ALL_TESTS();
  rc = static_cast<int>(g_comm->max(rc));
  g_comm.reset();
  return rc;
}
