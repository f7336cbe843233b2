// CPU tests of the shared harness: CSV schema and writing, argument parsing, statistics,
// line-rate maths, SM pinning arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "microbench/harness/args.h"
#include "microbench/harness/csv_table.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"
#include "microbench/harness/peer_group.h"
#include "microbench/harness/point_cost.h"
#include "microbench/harness/sample_schedule.h"
#include "microbench/harness/sm_pinning.h"
#include "microbench/harness/stats.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/topology.h"
#include "microbench/transfer/mechanism.h"

namespace fs = std::filesystem;
using namespace pk;

static std::string slurp(const std::string& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(TidyCsv, WritesHeaderAndRowsInSchemaOrder) {
  const std::string path = (fs::temp_directory_path() / "pkbench_test_schema.csv").string();
  TidyCsv csv(path, {"a", "b", "c"});
  csv.append({{"c", "3"}, {"a", "1"}});
  csv.append({{"b", "x,y"}});
  csv.flush();
  EXPECT_EQ(slurp(path), "a,b,c\n1,,3\n,x;y,\n");  // values never need quoting
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().string().find("pkbench_test_schema.csv.tmp"), std::string::npos) << "temporary file left";
  fs::remove(path);
}

// Later flushes append only the new rows: the file is whole after each and equals what one
// full write of every row gives; a new writer of the same path starts the file afresh.
TEST(TidyCsv, LaterFlushesAppendTheNewRowsOnly) {
  const std::string path = (fs::temp_directory_path() / "pkbench_test_append.csv").string();
  {
    TidyCsv old(path, {"x"});
    old.append({{"x", "stale"}});
    old.flush();
  }
  TidyCsv csv(path, {"a", "b"});
  csv.flush();
  EXPECT_EQ(slurp(path), "a,b\n");
  csv.append({{"a", "1"}});
  csv.flush();
  EXPECT_EQ(slurp(path), "a,b\n1,\n");
  csv.flush();  // nothing new: nothing written
  csv.append({{"b", "2"}});
  csv.append({{"a", "3"}, {"b", "4"}});
  csv.flush();
  EXPECT_EQ(slurp(path), "a,b\n1,\n,2\n3,4\n");
  TidyCsv whole(path + ".whole", {"a", "b"});
  for (const auto& r : csv.rows()) whole.append({{"a", r[0]}, {"b", r[1]}});
  whole.flush();
  EXPECT_EQ(slurp(path), slurp(path + ".whole"));
  fs::remove(path);
  fs::remove(path + ".whole");
}

// A point's cost columns: wall minus what was timed, the named parts and the rest as `other`.
TEST(PointCost, HarnessTimeIsWallMinusTimedWithNamedParts) {
  point_cost::take();  // whatever an earlier test left
  point_cost::timed(12.5);
  point_cost::phase("warm-up", 3);
  point_cost::phase("samples", 14);
  point_cost::timed(0.5);
  point_cost::phase("warm-up", 1);
  const point_cost::Totals t = point_cost::take();
  EXPECT_DOUBLE_EQ(t.timed_ms, 13.0);
  ASSERT_EQ(t.phases.size(), 2u);
  EXPECT_EQ(t.phases[0].first, "warm-up");
  EXPECT_DOUBLE_EQ(t.phases[0].second, 4.0);
  Row row;
  put_point_cost(row, 20, t);
  EXPECT_EQ(row["wall_ms"], "20");
  EXPECT_EQ(row["timed_ms"], "13");
  EXPECT_EQ(row["harness_ms"], "7");
  EXPECT_EQ(row["harness_phases"], "warm-up:4 samples:14 other:2");
  // Taken: the next point starts from nothing; a timed span past the wall clamps at 0.
  const point_cost::Totals next = point_cost::take();
  EXPECT_EQ(next.timed_ms, 0.0);
  EXPECT_TRUE(next.phases.empty());
  Row r2;
  put_point_cost(r2, 1, point_cost::Totals{1.5, {{"samples", 1.0}}});
  EXPECT_EQ(r2["harness_ms"], "0");
  EXPECT_EQ(r2["harness_phases"], "samples:1");
  // Every column it fills is a declared cost column.
  for (const auto& [k, v] : r2)
    EXPECT_NE(std::find(point_cost_columns().begin(), point_cost_columns().end(), k), point_cost_columns().end()) << k;
}

// A part opened inside another counts once, in the inner one: the parts sum to the outer
// part's whole time, never more than the wall time around them.
TEST(PointCost, NestedPartsCountOnce) {
  using clock = std::chrono::steady_clock;
  point_cost::take();
  const auto t0 = clock::now();
  {
    point_cost::Phase outer("setup");
    const int v = point_cost::within("communicator", [] {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
      return 7;
    });
    EXPECT_EQ(v, 7);  // within() returns what its function returns
  }
  const double wall = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  const point_cost::Totals t = point_cost::take();
  ASSERT_EQ(t.phases.size(), 2u);
  EXPECT_EQ(t.phases[0].first, "communicator");  // reported first: it ended first
  EXPECT_EQ(t.phases[1].first, "setup");
  EXPECT_GE(t.phases[0].second, 3.0);  // sleep_for sleeps at least that long
  EXPECT_GE(t.phases[1].second, 0.0);
  EXPECT_LE(t.phases[0].second + t.phases[1].second, wall);
  EXPECT_LE(t.phases[1].second, wall - 3.0);  // the outer part's own time leaves the inner one out
  EXPECT_EQ(t.timed_ms, 0.0);
  // The same part twice adds up; a part after the nest has no outer part.
  { point_cost::Phase a("verify"); }
  { point_cost::Phase b("verify"); }
  point_cost::phase("verify", 2);
  const point_cost::Totals u = point_cost::take();
  ASSERT_EQ(u.phases.size(), 1u);
  EXPECT_GE(u.phases[0].second, 2.0);
}

// FlowTimer::samples' overlapped order (sample_schedule.h) with the GPU steps recorded: E<slot>
// enqueues a batch, O opens a gate, F<slot> waits for a batch and takes its sample.
namespace {
struct OverlapRun {
  std::string order;
  int opens = 0;
  bool threw = false;
};
// One process of several: its enqueue of batch `fails_at` fails (-1: none); finish() throws,
// as first_error makes it on every process, at the first batch any process failed
// (`first_failed`), after the extra open() of a pending batch.
OverlapRun overlapped_run(int n, int fails_at, int first_failed) {
  OverlapRun r;
  int enqueued = 0, finished = 0;
  OverlapSteps s;
  s.enqueue = [&](int slot) {
    r.order += "E" + std::to_string(slot) + " ";
    return enqueued++ == fails_at ? std::string("refused") : std::string();
  };
  s.open = [&] {
    r.order += "O ";
    ++r.opens;
  };
  s.finish = [&](int slot, const std::string& err, bool pending) {
    r.order += "F" + std::to_string(slot) + " ";
    if (!err.empty()) {
      EXPECT_EQ(finished, fails_at);  // a failed batch is reported at its own finish
    }
    if (finished++ == first_failed) {
      if (pending) s.open();
      throw std::runtime_error("failed");
    }
  };
  try {
    overlapped_samples(n, s);
  } catch (const std::runtime_error&) {
    r.threw = true;
  }
  return r;
}
}  // namespace

TEST(SampleSchedule, NextBatchIsQueuedBetweenAGateOpeningAndItsWait) {
  EXPECT_EQ(overlapped_run(3, -1, -1).order, "E0 O E1 F0 O E0 F1 O F0 ");
  EXPECT_EQ(overlapped_run(1, -1, -1).order, "E0 O F0 ");
  EXPECT_EQ(overlapped_run(0, -1, -1).order, "");
  // A failed enqueue is followed by no other and is reported at its batch's finish.
  const OverlapRun r = overlapped_run(4, 1, 1);
  EXPECT_TRUE(r.threw);
  EXPECT_EQ(r.order, "E0 O E1 F0 O F1 O ");
}

TEST(SampleSchedule, EveryProcessOpensAsManyGatesWhateverFailedWhere) {
  // Two processes, each with its own failure (or none): as many opens on both, every armed batch
  // opened, and both throw where either failed.
  for (int n = 1; n <= 5; ++n)
    for (int a = -1; a < n; ++a)
      for (int b = -1; b < n; ++b) {
        const int first = a < 0 ? b : b < 0 ? a : std::min(a, b);
        const OverlapRun ra = overlapped_run(n, a, first), rb = overlapped_run(n, b, first);
        const std::string what = "n=" + std::to_string(n) + " a=" + std::to_string(a) + " b=" + std::to_string(b);
        EXPECT_EQ(ra.opens, rb.opens) << what << ": " << ra.order << "| " << rb.order;
        EXPECT_EQ(ra.threw, first >= 0) << what;
        EXPECT_EQ(rb.threw, first >= 0) << what;
        for (const OverlapRun* r : {&ra, &rb}) {
          // Every batch queued is released by an open() after it.
          const size_t last_e = r->order.rfind('E'), last_o = r->order.rfind('O');
          if (last_e != std::string::npos) {
            EXPECT_GT(last_o, last_e) << what << ": " << r->order;
          }
        }
      }
}

// The cost columns read back: medians and p90 over the ok points, each part's median with a
// point that lacks it counted as 0, a CSV without the columns left out, a malformed part refused.
TEST(PointCost, SummaryOfACsv) {
  const std::string path = (fs::temp_directory_path() / "pkbench_point_cost_summary.csv").string();
  {
    std::ofstream f(path);
    f << "study,status,peer_mode,gpu_count,wall_ms,timed_ms,harness_ms,harness_phases\n"
      << "collectives,ok,virtual,4,12,2,10,setup:4 samples:3 other:5\n"
      << "collectives,ok,virtual,4,23,3,20,setup:6 verify:10 other:7\n"
      << "collectives,skipped,virtual,4,1,0,1,other:1\n"
      << "collectives,ok,virtual,4,31,1,30,setup:8 verify:12 other:11\n"
      << "collectives,ok,virtual,4,42,2,40,verify:30 other:12\n";
  }
  const auto s = summarize_point_cost(path);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->study, "collectives");
  EXPECT_EQ(s->peer_mode, "virtual");
  EXPECT_EQ(s->gpus, 4);
  EXPECT_EQ(s->points, 4u);  // the skipped point measured nothing
  EXPECT_DOUBLE_EQ(s->harness_median_ms, 25);
  EXPECT_DOUBLE_EQ(s->harness_p90_ms, 37);
  EXPECT_DOUBLE_EQ(s->wall_median_ms, 27);
  EXPECT_DOUBLE_EQ(s->timed_median_ms, 2);
  // verify: 0, 10, 12, 30 -> 11; other: 5, 7, 11, 12 -> 9; setup: 4, 6, 8, 0 -> 5; samples: 0, 0, 0, 3 -> 0.
  ASSERT_EQ(s->phases.size(), 4u);
  EXPECT_EQ(s->phases[0], (std::pair<std::string, double>{"verify", 11}));
  EXPECT_EQ(s->phases[1], (std::pair<std::string, double>{"other", 9}));
  EXPECT_EQ(s->phases[2], (std::pair<std::string, double>{"setup", 5}));
  EXPECT_EQ(s->phases[3], (std::pair<std::string, double>{"samples", 0}));
  const std::string table = point_cost_table({*s}, 2);
  EXPECT_NE(table.find("| 4 | 25 | 37 | 27 | 2 | verify 11, other 9 |"), std::string::npos) << table;

  { std::ofstream(path) << "study,status,time_us\ncollectives,ok,3\n"; }
  EXPECT_FALSE(summarize_point_cost(path).has_value());
  { std::ofstream(path) << "wall_ms,timed_ms,harness_ms,harness_phases\n3,1,2,setup=2\n"; }
  try {
    summarize_point_cost(path);
    ADD_FAILURE() << "a part that is not name:ms was read";
  } catch (const CsvError& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'setup=2' is not name:ms"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_phases("setup:1x", "here"), CsvError);
  EXPECT_THROW(parse_phases(":1", "here"), CsvError);
  EXPECT_EQ(parse_phases(" a:1  b-c:2.5 ", "here"),
            (std::vector<std::pair<std::string, double>>{{"a", 1}, {"b-c", 2.5}}));
  fs::remove(path);
}

TEST(TidyCsv, RejectsColumnsOutsideTheSchema) {
  TidyCsv csv("unused.csv", {"a"});
  EXPECT_THROW(csv.append({{"nope", "1"}}), std::invalid_argument);
  EXPECT_THROW(TidyCsv("x.csv", {"a", "a"}), std::invalid_argument);
}

// A set of files lands whole or not at all: when the second cannot be written (its folder is a
// regular file), the first keeps its old contents and no temporary file is left beside it.
TEST(TidyCsv, WriteFilesAtomicallyIsAllOrNothing) {
  const fs::path dir = fs::temp_directory_path() / ("pkbench_test_atomic_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string first = (dir / "first.csv").string(), blocker = (dir / "blocker").string();
  write_file_atomically(first, "old\n");
  write_file_atomically(blocker, "a file, not a folder\n");
  EXPECT_ANY_THROW(write_files_atomically({{first, "new\n"}, {blocker + "/second.csv", "x\n"}}));
  EXPECT_EQ(slurp(first), "old\n");
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"first.csv", "blocker"}));
  write_files_atomically({{first, "new\n"}, {(dir / "second.csv").string(), "x\n"}});
  EXPECT_EQ(slurp(first), "new\n");
  EXPECT_EQ(slurp((dir / "second.csv").string()), "x\n");
  fs::remove_all(dir);
}

TEST(TidyCsv, EscapesQuotesAndNewlines) {
  EXPECT_EQ(csv_escape("plain"), "plain");
  EXPECT_EQ(csv_escape("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_escape("a\nb"), "\"a\nb\"");
  EXPECT_EQ(plain_field("say \"a,b\"\n"), "say 'a;b' ");
  EXPECT_EQ(fmt_num(0.0 / 0.0), "");
  EXPECT_EQ(fmt_num(372.123456789, 6), "372.123");
}

TEST(TransferSchema, HasUnitsMetadataAndNoDuplicates) {
  const auto& c = transfer::transfer_columns();
  std::set<std::string> s(c.begin(), c.end());
  EXPECT_EQ(s.size(), c.size());
  for (const char* need : {"mechanism", "direction", "pattern", "message_bytes", "sms", "time_us_median", "gbps",
                           "gbps_total", "cv", "pct_of_line_rate", "line_rate_source", "sm_clock_mhz_start",
                           "verified", "status", "error"})
    EXPECT_TRUE(s.count(need)) << need;
  for (const auto& m : metadata_columns()) EXPECT_TRUE(s.count(m)) << m;
}

TEST(Args, ParsesSizesWithBinarySuffixes) {
  EXPECT_EQ(parse_size("16"), 16u);
  EXPECT_EQ(parse_size("4K"), 4096u);
  EXPECT_EQ(parse_size("2MiB"), 2u << 20);
  EXPECT_EQ(parse_size("1G"), 1ull << 30);
  EXPECT_THROW(parse_size("-4"), ArgError);
  EXPECT_THROW(parse_size("4Q"), ArgError);
  EXPECT_THROW(parse_size(""), ArgError);
  EXPECT_THROW(parse_size("99999999999999999999"), ArgError);
  EXPECT_EQ(format_size(16384), "16KiB");
  EXPECT_EQ(format_size(48), "48B");
}

TEST(Args, ExpandsListsAndRanges) {
  EXPECT_EQ(parse_size_list("16:128"), (std::vector<uint64_t>{16, 32, 64, 128}));
  EXPECT_EQ(parse_size_list("1K:16K:x4,2K"), (std::vector<uint64_t>{1024, 2048, 4096, 16384}));
  EXPECT_EQ(parse_int_list("1:7:+3,all", 132), (std::vector<int>{1, 4, 7, 132}));
  EXPECT_THROW(parse_size_list("128:16"), ArgError);
  EXPECT_THROW(parse_size_list("16:128:x1"), ArgError);
  EXPECT_THROW(parse_int_list("0:8", 1), ArgError);  // doubling from 0 never advances
  EXPECT_THROW(parse_name_list("tma,foo", {"tma"}, "mechanism"), ArgError);
  EXPECT_EQ(parse_name_list("all", {"a", "b"}, "x"), (std::vector<std::string>{"a", "b"}));
}

TEST(Args, GpuPairsAreDistinctAndChecked) {
  EXPECT_EQ(parse_gpu_pair("1", "--gpus"), std::make_pair(1, 0));
  EXPECT_EQ(parse_gpu_pair("0,3", "--gpus"), std::make_pair(0, 3));
  EXPECT_THROW(parse_gpu_pair("0,0", "--gpus"), ArgError);
  EXPECT_THROW(parse_gpu_pair("a,1", "--gpus"), ArgError);
  EXPECT_THROW(parse_gpu_pair("0,1,2", "--gpus"), ArgError);
  EXPECT_THROW(parse_gpu_pair("-1,0", "--gpus"), ArgError);
  EXPECT_NO_THROW(check_gpu_pair({0, 1}, 2, "--gpus"));
  try {
    check_gpu_pair({0, 5}, 2, "--gpus");
    FAIL();
  } catch (const ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--gpus"), std::string::npos) << e.what();
  }
}

TEST(Stats, MedianMinMaxAndCv) {
  SampleStats s = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.cv, 1.2909944 / 2.5, 1e-6);
  EXPECT_DOUBLE_EQ(summarize({5}).cv, 0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

// Linear interpolation between order statistics: position q * (n - 1) of the sorted samples.
TEST(Stats, QuantilesInterpolateBetweenOrderStatistics) {
  EXPECT_DOUBLE_EQ(quantile({3, 1, 2}, 0.5), 2);
  EXPECT_DOUBLE_EQ(quantile({11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1), 2);
  EXPECT_DOUBLE_EQ(quantile({1, 2}, 0.5), 1.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(quantile({1, 2}, 1.5), 2);  // q clamped to [0, 1]
  EXPECT_DOUBLE_EQ(quantile({}, 0.5), 0);
  const SampleStats s = summarize({50, 10, 40, 20, 30});
  EXPECT_DOUBLE_EQ(s.p10, 14);
  EXPECT_DOUBLE_EQ(s.p90, 46);
  EXPECT_DOUBLE_EQ(s.median, quantile({50, 10, 40, 20, 30}, 0.5));
}

static GpuInfo nvlink_gpu(int ordinal, int links, double gbps) {
  GpuInfo g;
  g.ordinal = ordinal;
  g.nvlink_active_links = links;
  g.nvlink_link_gbps = gbps;
  return g;
}

TEST(Topology, LineRateIsTheNarrowerSidesLinks) {
  LineRate r = pair_line_rate(nvlink_gpu(0, 18, 26.5625), nvlink_gpu(1, 18, 26.5625), true);
  EXPECT_DOUBLE_EQ(r.gbps, 478.125);
  EXPECT_NE(r.source.find("18 links"), std::string::npos);
  EXPECT_DOUBLE_EQ(pair_line_rate(nvlink_gpu(0, 18, 25), nvlink_gpu(1, 12, 25), true).gbps, 300);
  EXPECT_EQ(pair_line_rate(nvlink_gpu(0, 18, 25), nvlink_gpu(1, 18, 25), false).gbps, 0);
  EXPECT_EQ(pair_line_rate(nvlink_gpu(0, 18, 25), nvlink_gpu(0, 18, 25), true).gbps, 0);  // local
  LineRate none = pair_line_rate(nvlink_gpu(0, 0, 0), nvlink_gpu(1, 0, 0), true);
  EXPECT_EQ(none.gbps, 0);
  EXPECT_NE(none.source.find("unknown"), std::string::npos);
  EXPECT_EQ(cuda_version_string(13000), "13.0");
}

TEST(SmPinning, PadsSharedMemorySoOnlyTheRequestedBlocksFit) {
  const uint64_t per_sm = 233472, reserved = 1024, optin = 232448;  // Hopper
  for (int bpsm : {1, 2, 3, 4, 8}) {
    uint64_t r = pinned_smem_bytes(0, bpsm, per_sm, reserved, optin);
    EXPECT_LE(bpsm * (r + reserved), per_sm) << bpsm;
    EXPECT_GT((bpsm + 1) * (r + reserved), per_sm) << bpsm;
    EXPECT_EQ(r % 128, 0u);
  }
  EXPECT_EQ(pinned_smem_bytes(200000, 1, per_sm, reserved, optin), 200064u);
  EXPECT_THROW(pinned_smem_bytes(150000, 2, per_sm, reserved, optin), ArgError);
  EXPECT_THROW(pinned_smem_bytes(240000, 1, per_sm, reserved, optin), ArgError);
}

// Virtual ranks on a fake device: every rank the same SM share, aligned to the split's
// granularity, at least its minimum; the rest idle; too many ranks refused (--ranks named).
TEST(VirtualRanks, EqualAlignedSharesOfTheDevice) {
  // H100 SXM: 132 SMs, green-context partitions of 8 SMs minimum, multiples of 8.
  const std::pair<int, int> h100[] = {{2, 64}, {3, 40}, {4, 32}, {8, 16}};
  for (auto [ranks, share] : h100) {
    const pk::VirtualPlan p = pk::plan_virtual_ranks(ranks, 132, 8, 8);
    EXPECT_EQ(p.sms_per_rank, share) << ranks << " ranks";
    EXPECT_EQ(p.idle_sms, 132 - ranks * share);
    EXPECT_EQ(p.sms_per_rank % 8, 0);
  }
  EXPECT_EQ(pk::plan_virtual_ranks(2, 16, 8, 8).sms_per_rank, 8);
  EXPECT_EQ(pk::plan_virtual_ranks(3, 30, 2, 2).sms_per_rank, 10);  // a finer-grained GPU
  try {
    pk::plan_virtual_ranks(8, 40, 8, 8);
    FAIL() << "8 ranks of 8 SMs do not fit in 40";
  } catch (const pk::ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--ranks"), std::string::npos);
  }
  EXPECT_THROW(pk::plan_virtual_ranks(1, 132, 8, 8), pk::ArgError);
  EXPECT_THROW(pk::plan_virtual_ranks(9, 132, 8, 8), pk::ArgError);
}

TEST(VirtualRanks, RankCountBelongsToVirtualModeOnly) {
  EXPECT_NO_THROW(pk::check_virtual_ranks(pk::PeerMode::virt, 2));
  EXPECT_NO_THROW(pk::check_virtual_ranks(pk::PeerMode::virt, 8));
  EXPECT_THROW(pk::check_virtual_ranks(pk::PeerMode::virt, 9), pk::ArgError);
  EXPECT_THROW(pk::check_virtual_ranks(pk::PeerMode::single, 3), pk::ArgError);
  EXPECT_NO_THROW(pk::check_virtual_ranks(pk::PeerMode::ipc, 0));
  EXPECT_EQ(pk::parse_peer_mode("virtual"), pk::PeerMode::virt);
  EXPECT_EQ(pk::peer_mode_name(pk::PeerMode::virt), "virtual");
}

// Rank -> buffers: every virtual rank's table reaches every rank's own copy (one address
// space), and the table of rank r says self = r.
TEST(VirtualRanks, EveryRankReachesEveryCopy) {
  pk::SymBuf b(4096, 3);
  std::array<char*, pk::kMaxGpus> row{};
  char fake[3][16];
  for (int r = 0; r < 3; ++r) row[r] = fake[r];
  for (int r = 0; r < 3; ++r) b.set_row(r, row);
  for (int from = 0; from < 3; ++from) {
    const auto t = b.table<char>(from);
    EXPECT_EQ(t.self, from);
    EXPECT_EQ(t.size, 3);
    for (int owner = 0; owner < 3; ++owner) EXPECT_EQ(b.at(from, owner), fake[owner]);
  }
}

// FlowTimer::calibrate's count and its warm-up's stop (sample_schedule.h).
TEST(Calibration, CountIsTheMedianRunOverTheTargetWithinTheQueueBudget) {
  EXPECT_EQ(iters_for({0.5}, 2, 1000), 4);
  EXPECT_EQ(iters_for({0.3, 0.7}, 2, 1000), 4);       // two runs: their mean
  EXPECT_EQ(iters_for({0.1, 0.5, 9.0}, 2, 1000), 4);  // odd count: the middle one
  EXPECT_EQ(iters_for({0.001}, 2, 512), 512);         // the queue's budget caps it
  EXPECT_EQ(iters_for({3.0}, 2, 1000), 1);
  EXPECT_EQ(iters_for({0.0}, 2, 8), 8);
  EXPECT_EQ(iters_for({0.5}, 2, 0), 1);
}

// An ungated first run (the host's queueing in its span) sets the count only where no gated run followed it.
TEST(Calibration, AnUngatedFirstRunCountsOnlyAlone) {
  EXPECT_EQ(count_basis({0.9, 0.5, 0.5}, true), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(count_basis({0.9}, true), (std::vector<double>{0.9}));
  EXPECT_EQ(count_basis({0.9, 0.5}, false), (std::vector<double>{0.9, 0.5}));
  EXPECT_EQ(iters_for(count_basis({0.9, 0.5}, true), 2, 1000), 4);
  EXPECT_EQ(count_basis({}, true), std::vector<double>{});
}

TEST(Calibration, WarmupStopsByTimeAfterTwoRunsOrOneASecondCouldNotOverrule) {
  // Before the warm-up time, never.
  EXPECT_FALSE(warmup_done({}, 5, 2, 2, 1000, false));
  EXPECT_FALSE(warmup_done({9.0}, 1.5, 2, 2, 1000, false));
  EXPECT_FALSE(warmup_done({9.0, 9.0}, 1.9, 2, 2, 1000, true));
  // After it: two runs always; one where the count cannot depend on a second.
  EXPECT_TRUE(warmup_done({1.0, 1.1}, 2.2, 2, 2, 1000, false));
  EXPECT_FALSE(warmup_done({2.5}, 2.6, 2, 2, 1000, false));  // a fast second run gives 2
  EXPECT_TRUE(warmup_done({4.0}, 4.1, 2, 2, 1000, false));   // twice the target
  EXPECT_TRUE(warmup_done({2.5}, 2.6, 2, 2, 1, false));      // the queue allows one operation
  EXPECT_TRUE(warmup_done({0.3}, 2.6, 2, 2, 1000, true));    // a fixed count
  // --warmup-runs: one run is enough once the time is up; three need three.
  EXPECT_TRUE(warmup_done({2.5}, 2.6, 2, 2, 1000, false, 1));
  EXPECT_FALSE(warmup_done({2.5}, 1.0, 2, 2, 1000, false, 1));
  EXPECT_FALSE(warmup_done({1.0, 1.1}, 2.2, 2, 2, 1000, false, 3));
  EXPECT_TRUE(warmup_done({1.0, 1.1, 0.9}, 3.1, 2, 2, 1000, false, 3));
  EXPECT_FALSE(warmup_done({4.0, 4.0}, 8.1, 2, 2, 1000, false, 3));
  EXPECT_FALSE(warmup_done({4.0}, 4.1, 2, 2, 1000, false, 3));  // asked for three: no one-run stop
  // Where it stops after one run, every second run would have given the same count.
  for (double r1 : {0.05, 0.5, 1.0, 1.9, 2.0, 2.5, 3.9, 4.0, 7.0})
    for (int max_k : {1, 2, 8, 1000})
      if (warmup_done({r1}, 100, 2, 2, max_k, false)) {
        for (double r2 = 0; r2 < 50; r2 += 0.01) {
          EXPECT_EQ(iters_for({r1, r2}, 2, max_k), iters_for({r1}, 2, max_k)) << r1 << " " << r2 << " " << max_k;
        }
      }
}
