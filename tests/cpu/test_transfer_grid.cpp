// CPU tests of the transfer study's grid, validation and planning (no GPU involved).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "microbench/harness/cuda_check.h"
#include "microbench/transfer/mechanism.h"
#include "microbench/transfer/transfer_grid.h"

using namespace pk;
using namespace pk::transfer;

static GpuInfo h200() {
  GpuInfo g;
  g.ordinal = 0;
  g.name = "NVIDIA H200";
  g.sm_count = 132;
  g.l2_bytes = 60 << 20;
  g.smem_per_sm_bytes = 233472;
  g.smem_per_block_optin_bytes = 232448;
  g.smem_reserved_per_block_bytes = 1024;
  g.max_threads_per_sm = 2048;
  g.max_blocks_per_sm = 32;
  return g;
}

static TransferPoint point(const std::string& mech, uint64_t msg) {
  TransferPoint p;
  p.mechanism = mech;
  p.message_bytes = msg;
  return p;
}

TEST(TransferGrid, DefaultPresetCoversEveryMechanismWithoutDuplicates) {
  int dropped = -1;
  auto pts = build_grid(GridOptions{}, h200(), 2, &dropped);
  std::set<std::string> names, mechs, sweeps;
  for (const auto& p : pts) {
    names.insert(p.name());
    mechs.insert(p.mechanism);
    sweeps.insert(p.sweep);
  }
  EXPECT_EQ(names.size(), pts.size());
  const auto all = mechanism_names();
  EXPECT_EQ(mechs, (std::set<std::string>(all.begin(), all.end())));  // fig2 takes every registered one
  // Two GPUs: the two-GPU figures and the points shaped as nvbandwidth's testcases (no fan-out).
  EXPECT_EQ(sweeps, (std::set<std::string>{"fig2", "fig3", "tune", "mixed", "local", "nvbandwidth"}));
  EXPECT_GT(dropped, 0);  // the tuning grid spans TMA stages that exceed shared memory
  for (const auto& p : pts) {
    if (mechanism(p.mechanism).uses_sms()) EXPECT_TRUE(p.sms() >= 1 && p.sms() <= 132) << p.name();
    else EXPECT_TRUE(p.knobs.empty()) << p.name();
  }
}

// The registry (mechanism_list.h): every registered mechanism has one name, its own curve in
// fig2 (the sizes it declares, each one it accepts on an H200), and is runnable asked by name
// (resolved at the preset's default point); an unknown name is refused with its flag named.
TEST(TransferGrid, EveryRegisteredMechanismIsInFig2AndRunnableByName) {
  const auto all = mechanism_names();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size()) << "a name registered twice";
  GridOptions fig2;
  fig2.preset = "fig2";
  fig2.directions = "push";
  fig2.patterns = "one_way";
  const auto pts = build_grid(fig2, h200(), 2);
  for (const Mechanism* m : mechanisms()) {
    SCOPED_TRACE(m->name());
    EXPECT_EQ(&mechanism(m->name()), m);
    std::vector<uint64_t> sizes;
    for (const auto& p : pts)
      if (p.mechanism == m->name()) sizes.push_back(p.message_bytes);
    EXPECT_EQ(sizes, m->size_sweep(h200()));
    EXPECT_FALSE(sizes.empty());
    GridOptions o;
    o.preset = "custom";
    o.mechanisms = m->name();
    const auto mine = build_grid(o, h200(), 2);
    ASSERT_FALSE(mine.empty());
    for (const auto& p : mine) EXPECT_EQ(p.mechanism, m->name());
  }
  GridOptions bad;
  bad.mechanisms = "ce,no_such_mechanism";
  try {
    check_options(bad);
    ADD_FAILURE() << "an unknown mechanism was accepted";
  } catch (const ArgError& e) {
    EXPECT_NE(std::string(e.what()).find("--mechanisms=ce,no_such_mechanism: unknown mechanism 'no_such_mechanism'"),
              std::string::npos)
        << e.what();
  }
}

TEST(TransferGrid, ScalePresetSweepsGpuCountsOnFanPatternsOnly) {
  GridOptions o;
  o.preset = "scale";
  std::set<int> counts;
  std::set<std::string> pats;
  for (const auto& p : build_grid(o, h200(), 2)) {
    counts.insert(p.gpu_count);
    pats.insert(p.pattern);
    EXPECT_NE(p.name().find("/ngpus:"), std::string::npos);
  }
  EXPECT_EQ(counts, (std::set<int>{2, 4, 8}));
  EXPECT_EQ(pats, (std::set<std::string>{"one_to_all", "all_to_one", "all_pairs"}));
  o.preset = "fig2";
  o.gpu_counts = "2,4";  // one_way/bidir take explicit GPUs: counts do not multiply them
  o.mechanisms = "ce";
  o.directions = "push";
  o.patterns = "one_way";
  EXPECT_TRUE(build_grid(o, h200(), 2).empty() == false);
  o.patterns = "one_way,all_pairs";
  auto pts = build_grid(o, h200(), 2);
  int fan = 0;
  for (const auto& p : pts) fan += p.pattern == "all_pairs";
  EXPECT_EQ(fan, 27 * 2);
}

// Figure 2's sizes, one way, pushed, for one mechanism.
static GridOptions fig2_one_way_push(const char* mechanism) {
  GridOptions o;
  o.preset = "fig2";
  o.mechanisms = mechanism;
  o.directions = "push";
  o.patterns = "one_way";
  return o;
}

TEST(TransferGrid, Fig2SpansSixteenBytesToOneGiBForTheCopyEngine) {
  const GridOptions o = fig2_one_way_push("ce");
  auto pts = build_grid(o, h200(), 2);
  ASSERT_EQ(pts.size(), 27u);
  EXPECT_EQ(pts.front().message_bytes, 16u);
  EXPECT_EQ(pts.back().message_bytes, 1ull << 30);
}

TEST(TransferGrid, AutoFitShrinksTmaStagesForLargeMessages) {
  const GridOptions o = fig2_one_way_push("tma_bulk");
  for (const auto& p : build_grid(o, h200(), 2)) {
    const uint64_t stride = (p.message_bytes + 127) / 128 * 128;
    const uint64_t warps = p.knob("threads") / 32, depth = p.knob("pipeline_depth");
    const uint64_t smem = 128 + (warps * depth * 8 + 127) / 128 * 128 + warps * depth * stride;
    EXPECT_LE(smem, 232448u) << p.name();
    EXPECT_GE(depth, 1u);
  }
}

TEST(TransferGrid, SizesAloneKeepFittingThePresetKnobs) {
  // `--sizes 16:128K` over the default presets: the tuning grid's TMA warps x stages that a
  // 32 KiB message cannot hold are left out (or shrunk), not refused; knob values the user
  // gave still run or are refused.
  GridOptions o;
  o.sizes = "16:128K";
  EXPECT_NO_THROW(build_grid(o, h200(), 2));
  o.knob_lists["sms"] = "1:132:+33";
  EXPECT_NO_THROW(build_grid(o, h200(), 2));
  GridOptions pinned;
  pinned.mechanisms = "tma_bulk";
  pinned.sizes = "32K";
  pinned.knob_lists["threads"] = "128";
  pinned.knob_lists["pipeline_depth"] = "2";
  EXPECT_THROW(build_grid(pinned, h200(), 2), ArgError);
}

TEST(TransferGrid, RejectsBadExplicitInput) {
  GridOptions o;
  o.preset = "custom";
  o.mechanisms = "tma_bulk";
  o.sizes = "100";  // not a multiple of 16
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.sizes = "2G";
  o.total_bytes = 1ull << 30;  // message larger than the total
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.sizes = "16K";
  o.knob_lists["sms"] = "200";  // more SMs than the GPU has
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.knob_lists["sms"] = "";
  o.mechanisms = "warp_drive";
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.mechanisms = "tma_bulk";
  o.knob_lists["pipeline_depth"] = "64";
  o.sizes = "64K";  // 4 warps x 64 stages x 64 KiB cannot fit
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.knob_lists["pipeline_depth"] = "";
  o.gpus = "0,5";  // no GPU 5 in a 2-GPU run
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.gpus = "1,1";
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.gpus = "";
  o.knob_lists["vec_bytes"] = "8";  // a knob of reg, which is not selected
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.knob_lists["vec_bytes"] = "";
  o.preset = "nonsense";
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
}

TEST(Mechanisms, CheckTheirOwnKnobs) {
  GpuInfo g = h200();
  TransferPoint p = point("reg", 4096);
  p.knobs["vec_bytes"] = 12;
  EXPECT_THROW(mechanism("reg").resolve(p, g), ArgError);
  p = point("reg", 4096);
  p.knobs["threads"] = 100;  // not a multiple of 32
  EXPECT_THROW(mechanism("reg").resolve(p, g), ArgError);
  p = point("reg", 4096);
  p.knobs["pipeline_depth"] = 3;  // not a knob of reg: dropped
  mechanism("reg").resolve(p, g);
  EXPECT_EQ(p.sms(), 132);
  EXPECT_EQ(p.knob("vec_bytes"), 16);
  EXPECT_EQ(p.knobs.count("pipeline_depth"), 0u);
  p = point("tma_tile", 1536);  // a multiple of 512 B: 3 rows of 512 B
  EXPECT_NO_THROW(mechanism("tma_tile").resolve(p, g));
  p = point("tma_tile", 48);  // neither a power of two nor whole 512-B rows
  EXPECT_THROW(mechanism("tma_tile").resolve(p, g), ArgError);
  p = point("tma_tile", 256 * 1024);  // beyond a 256x256 box
  EXPECT_THROW(mechanism("tma_tile").resolve(p, g), ArgError);
  p = point("tma_bulk", 240 * 1024);  // beyond shared memory
  EXPECT_THROW(mechanism("tma_bulk").resolve(p, g), ArgError);
  EXPECT_EQ(mechanism("tma_tile").op_granule(point("tma_tile", 65536)), 16384u * 128);
  p = point("reg_l2hint", 4096);
  p.knobs["vec_bytes"] = 8;  // the hint is wired for 16-byte loads only
  EXPECT_THROW(mechanism("reg_l2hint").resolve(p, g), ArgError);
  EXPECT_THROW(mechanism("nope"), ArgError);
}

TEST(Flows, PatternsExpandToTheRightPairs) {
  TransferPoint p;
  p.pattern = "bidir";
  p.direction = "pull";
  auto f = flows_for(p, 2);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].src, 0);
  EXPECT_EQ(f[0].dst, 1);
  EXPECT_EQ(f[0].issuer, 1);  // pull: the destination issues
  EXPECT_EQ(f[1].issuer, 0);
  EXPECT_EQ(directions_of(f), 2);
  p.pattern = "one_way";
  p.direction = "mixed";  // the source pushes and the destination pulls, both 0 -> 1
  auto mixed = flows_for(p, 2);
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed[0].issuer, 0);
  EXPECT_EQ(mixed[1].issuer, 1);
  EXPECT_EQ(mixed[1].src, 0);
  EXPECT_EQ(directions_of(mixed), 1);
  p.direction = "sideways";
  EXPECT_THROW(flows_for(p, 2), ArgError);
  p.direction = "pull";
  p.pattern = "all_pairs";
  EXPECT_EQ(flows_for(p, 4).size(), 12u);
  p.pattern = "one_to_all";
  p.direction = "push";
  auto o2a = flows_for(p, 8);
  EXPECT_EQ(o2a.size(), 7u);
  p.knobs["sms"] = 132;
  EXPECT_EQ(sms_per_flow(p, o2a, 0), 18);  // 132 SMs shared by 7 flows
  p.pattern = "one_way";
  EXPECT_THROW(flows_for(p, 1), SkipPoint);  // one GPU: skipped with the reason
  p.gpu_b = 5;
  EXPECT_THROW(flows_for(p, 2), ArgError);
  p.pattern = "local";
  EXPECT_EQ(flows_for(p, 1).size(), 1u);
  p.pattern = "all_pairs";  // a GPU-count sweep point
  p.gpu_b = 1;
  p.gpu_count = 4;
  EXPECT_EQ(flows_for(p, 8).size(), 12u);  // the first 4 of 8 GPUs
  EXPECT_THROW(flows_for(p, 2), SkipPoint);  // 4 GPUs asked, 2 present: skipped with the reason
}

TEST(Plan, CapsTinyMessagesAndRotatesSmallWorkingSets) {
  const uint64_t L2 = 60 << 20;
  Plan a = make_plan(1ull << 30, 16384, 1 << 20, 16384, L2, 1ull << 30);
  EXPECT_EQ(a.ops, 65536u);
  EXPECT_EQ(a.groups, 1);
  Plan b = make_plan(1ull << 30, 16, 1 << 20, 16, L2, 1ull << 30);
  EXPECT_EQ(b.ops, 1u << 20);
  EXPECT_EQ(b.bytes_per_op, 16u << 20);
  EXPECT_EQ(b.groups, 12);  // 16 MiB x 12 >= 3 x 60 MiB
  Plan c = make_plan(1ull << 30, 1 << 20, 256, 1 << 20, L2, 1ull << 30);
  EXPECT_EQ(c.bytes_per_op, 256u << 20);
  EXPECT_EQ(c.groups, 1);
  EXPECT_THROW(make_plan(1024, 16, 0, 4096, L2, 1ull << 30), ArgError);  // total below one granule
  EXPECT_THROW(make_plan(2ull << 30, 1 << 20, 0, 1 << 20, L2, 1ull << 30), ArgError);  // exceeds the buffers
}

TEST(Knobs, DeclarationsDriveColumnsNamesAndFlags) {
  // Every knob a registered mechanism declares is a CSV column, once, in declaration order.
  const auto& cols = transfer_columns();
  std::vector<std::string> knob_cols;
  for (const Knob& k : all_knobs()) {
    EXPECT_EQ(std::count(cols.begin(), cols.end(), k.name), 1) << k.name;
    knob_cols.push_back(k.name);
    EXPECT_FALSE(k.flag.empty());
  }
  EXPECT_EQ(knob_cols, (std::vector<std::string>{"sms", "blocks_per_sm", "threads", "pipeline_depth", "vec_bytes",
                                                 "unroll"}));
  // The union of allowed values: reg allows 4/8/16-B vectors, reg_l2hint only 16.
  for (const Knob& k : all_knobs()) {
    if (k.name == "vec_bytes") EXPECT_EQ(k.allowed, (std::vector<int>{4, 8, 16}));
  }
  // A point's name lists exactly its mechanism's knobs, in declaration order.
  TransferPoint p = point("reg", 4096);
  mechanism("reg").resolve(p, h200());
  const std::string n = p.name();
  EXPECT_NE(n.find("/sms:132/blocks_per_sm:1/threads:512/vec_bytes:16/unroll:4"), std::string::npos) << n;
  EXPECT_EQ(n.find("pipeline_depth"), std::string::npos) << n;
  TransferPoint c = point("ce", 4096);
  mechanism("ce").resolve(c, h200());
  EXPECT_EQ(c.name().find("sms"), std::string::npos) << c.name();
  // Each mechanism is registered once and found by name.
  std::set<std::string> names;
  for (const auto& m : mechanism_names()) EXPECT_TRUE(names.insert(m).second) << m;
  EXPECT_EQ(names.size(), mechanisms().size());
}

TEST(Knobs, OverrideFlagsReachOnlyTheirMechanisms) {
  GridOptions o;
  o.preset = "custom";
  o.mechanisms = "reg,tma_bulk";
  o.knob_lists["unroll"] = "1,2";
  int reg = 0, tma = 0;
  for (const auto& p : build_grid(o, h200(), 2)) {
    if (p.mechanism == "reg") {
      ++reg;
      EXPECT_TRUE(p.knob("unroll") == 1 || p.knob("unroll") == 2);
    }
    if (p.mechanism == "tma_bulk") {
      ++tma;
      EXPECT_EQ(p.knobs.count("unroll"), 0u);
    }
  }
  EXPECT_EQ(reg, 2);
  EXPECT_EQ(tma, 1);
  o.knob_lists["unroll"] = "3";
  EXPECT_THROW(build_grid(o, h200(), 2), ArgError);
  o.knob_lists["unroll"] = "1:x";
  EXPECT_THROW(check_options(o), ArgError);
}

// The default grid follows the run's GPU count (a whole NVSwitch node: issue 30): nvbandwidth's
// shapes over every pair (ordered one way, unordered both ways), and from three GPUs the node's
// fan-out, fan-in and all-pairs traffic for every mechanism and Figure 3's SM sweep with a fan-out.
TEST(TransferGrid, DefaultGridUsesEveryGpuOfTheNode) {
  for (int n : {1, 2, 3, 4, 8}) {
    SCOPED_TRACE(std::to_string(n) + " GPUs");
    const auto pts = build_grid(GridOptions{}, h200(), n);
    std::set<std::string> names, fan_mechs, fig3_sms;
    std::set<std::pair<int, int>> one_way_pairs, bidir_pairs;
    int fans = 0, nvb_fans = 0;
    for (const auto& p : pts) {
      EXPECT_TRUE(names.insert(p.name()).second) << p.name();
      EXPECT_LT(std::max(p.gpu_a, p.gpu_b), std::max(n, 2)) << p.name();
      if (p.sweep == "nvbandwidth" && p.pattern == "one_way") one_way_pairs.insert({p.gpu_a, p.gpu_b});
      if (p.sweep == "nvbandwidth" && p.pattern == "bidir") bidir_pairs.insert({p.gpu_a, p.gpu_b});
      if (p.sweep == "nvbandwidth" && (p.pattern == "one_to_all" || p.pattern == "all_to_one")) ++nvb_fans;
      if (p.sweep == "fan") {
        ++fans;
        fan_mechs.insert(p.mechanism);
        EXPECT_EQ(p.gpu_count, 0) << "a fan over every GPU of the run: " << p.name();
      }
      if (p.sweep == "fig3_fan") {
        EXPECT_EQ(p.pattern, "one_to_all");
        fig3_sms.insert(std::to_string(p.sms()));
      }
      if (p.sweep == "nvbandwidth" && p.mechanism == "reg") EXPECT_EQ(p.total_bytes, kNvbandwidthBytes) << p.name();
      if (p.sweep == "nvbandwidth" && p.mechanism == "ce") EXPECT_EQ(p.message_bytes, kNvbandwidthBytes) << p.name();
    }
    const size_t pairs = n >= 2 ? size_t(n) * (n - 1) : 0;
    EXPECT_EQ(one_way_pairs.size(), pairs);
    EXPECT_EQ(bidir_pairs.size(), pairs / 2);
    for (const auto& [a, b] : bidir_pairs) EXPECT_LT(a, b);
    if (n >= 3) {
      const auto all = mechanism_names();
      EXPECT_EQ(fan_mechs, (std::set<std::string>(all.begin(), all.end())));  // every mechanism fans out
      EXPECT_EQ(fans, int(all.size()) * 2 * 3);  // push, pull x one_to_all, all_to_one, all_pairs
      EXPECT_GE(fig3_sms.size(), 10u);          // the SM sweep
      EXPECT_EQ(nvb_fans, 2 * 2 * 2);           // ce, reg x push, pull x one_to_all, all_to_one
    } else {
      EXPECT_EQ(fans, 0);
      EXPECT_TRUE(fig3_sms.empty());
      EXPECT_EQ(nvb_fans, 0);
    }
  }
}

// --gpus pins the pair: the every-pair sweeps then run on it alone.
TEST(TransferGrid, GpusFlagPinsTheNvbandwidthPair) {
  GridOptions o;
  o.preset = "nvbandwidth";
  o.gpus = "2,3";
  for (const auto& p : build_grid(o, h200(), 4))
    if (p.pattern == "one_way" || p.pattern == "bidir") EXPECT_TRUE(p.gpu_a == 2 && p.gpu_b == 3) << p.name();
}
