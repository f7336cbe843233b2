// The nccl-tests timing method (nccltests_method.h) on a fake clock: which steps the timer
// covers, the division by the count, and the average (not the maximum) over ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "microbench/collectives/nccltests_method.h"

using namespace pk::coll;

namespace {

class FakeClock final : public HostClock {
 public:
  double t = 0;  // seconds
  double now_s() override { return t; }
};

// Every step costs a known time on the fake clock and is logged; the collectives' GPU time
// is paid in complete(), as a host that waits for its streams pays it.
struct Script {
  FakeClock clock;
  std::vector<std::string> log;
  double barrier_s = 0.5, start_s = 2e-6, capture_s = 0.25, launch_s = 1e-6, gpu_per_op_s = 10e-6;
  int queued = 0;         // collectives waiting on the GPU
  double other_rank = 0;  // the other rank's figure, averaged in
  NcclTestsSteps steps() {
    NcclTestsSteps s;
    s.barrier = [this] {
      log.push_back("barrier");
      clock.t += barrier_s;
    };
    s.start = [this](int i) {
      log.push_back("start" + std::to_string(i));
      clock.t += start_s;
      ++queued;
    };
    s.complete = [this] {
      log.push_back("complete");
      clock.t += queued * gpu_per_op_s;
      queued = 0;
    };
    s.begin_capture = [this] {
      log.push_back("begin_capture");
      clock.t += capture_s;
    };
    s.end_capture = [this] {
      log.push_back("end_capture");
      clock.t += capture_s;
      captured = queued;  // captured calls do not run
      queued = 0;
    };
    s.launch_graph = [this] {
      log.push_back("launch");
      clock.t += launch_s;
      queued += captured;
    };
    s.average = [this](double mine) {
      log.push_back("average");
      return other_rank == 0 ? mine : (mine + other_rank) / 2;
    };
    return s;
  }
  int captured = 0;
};

}  // namespace

TEST(NcclTestsMethod, EagerTimesBackToBackCallsAndTheFinalSync) {
  Script sc;
  const double us = nccltests_time_us(sc.clock, 4, 0, sc.steps());
  // Timed: 4 calls (2 us each on the host) and the sync that waits for 4 x 10 us of GPU
  // work; not timed: the warm-up call, its sync, the barrier.
  EXPECT_NEAR(us, (4 * 2e-6 + 4 * 10e-6) / 4 * 1e6, 1e-6);
  const std::vector<std::string> want = {"start0", "complete", "barrier", "start0", "start1",
                                         "start2", "start3", "complete", "average"};
  EXPECT_EQ(sc.log, want);
}

TEST(NcclTestsMethod, GraphTimesOnlyTheLaunchesAfterTheCapture) {
  Script sc;
  const double us = nccltests_time_us(sc.clock, 5, 1, sc.steps());
  // The capture (0.5 s on this clock) and the barrier after it are outside the timer: one
  // launch (1 us) and the sync of 5 collectives.
  EXPECT_NEAR(us, (1e-6 + 5 * 10e-6) / 5 * 1e6, 1e-6);
  const std::vector<std::string> want = {"start0", "complete", "barrier", "begin_capture", "start0", "start1",
                                         "start2", "start3", "start4", "end_capture", "barrier", "launch",
                                         "complete", "average"};
  EXPECT_EQ(sc.log, want);
}

TEST(NcclTestsMethod, SeveralGraphLaunchesDivideByEveryCollective) {
  Script sc;
  const double us = nccltests_time_us(sc.clock, 5, 3, sc.steps());  // -n 5 -G 3
  EXPECT_NEAR(us, (3 * 1e-6 + 15 * 10e-6) / 15 * 1e6, 1e-6);
}

TEST(NcclTestsMethod, AveragesOverRanksNotTheMaximum) {
  Script sc;
  sc.other_rank = 30e-6;  // a slower rank: nccl-tests reports the mean of the two
  const double us = nccltests_time_us(sc.clock, 4, 0, sc.steps());
  EXPECT_NEAR(us, ((4 * 2e-6 + 4 * 10e-6) / 4 + 30e-6) / 2 * 1e6, 1e-6);
}

TEST(NcclTestsMethod, AtLeastOneIteration) {
  Script sc;
  const double us = nccltests_time_us(sc.clock, 0, 0, sc.steps());
  EXPECT_NEAR(us, (2e-6 + 10e-6) * 1e6, 1e-6);
}
