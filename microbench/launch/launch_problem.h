#pragma once
// Plain C++ side of the launch study (the CPU tests build it): the variants (the registry,
// launch_list.h), the points of a run and their names, the presets, the CSV columns. Everything
// refused here throws pk::ArgError naming the flag.
#include <string>
#include <vector>

namespace pk::launch {

// One way of launching, as the registry declares it.
struct VariantInfo {
  std::string name;
  bool pdl;    // launched with programmatic dependent launch
  bool graph;  // the operation's kernels are one CUDA graph
  std::string summary;
};
const std::vector<VariantInfo>& variant_infos();
const VariantInfo& variant_info(const std::string& name);  // ArgError naming --variants

// Kernels one operation launches: every launch of an operation waits behind one start gate, and
// the harness queues at most 512 calls there (TimingOptions::max_enqueued).
inline constexpr int kMaxKernels = 512;
inline constexpr int kMaxBlocks = 65536;

struct Point {
  std::string variant;
  int kernels = 1;  // kernels per operation
  int blocks = 0;   // blocks per kernel; 0: one per SM of the rank
  std::string name() const;  // launch/<variant>/k<kernels>/b<blocks> (b<sms> for 0)
};

// What the flags say (a field left empty: the preset's).
struct GridText {
  std::string variants, kernels, blocks;
};
struct Preset {
  std::string name, help;
  GridText grid;
};
const std::vector<Preset>& presets();
const Preset& preset(const std::string& name);  // ArgError naming --preset
// Every (blocks, kernels, variant) of the grid, variants innermost in the registry's order.
std::vector<Point> plan_points(const Preset& p, const GridText& flags);

// Calls to the runtime one operation makes on a GPU: the graph's one launch, else one per kernel.
int calls_per_op(const Point& p);
// --list's estimate of one operation (milliseconds): a nominal 4 us per kernel.
double planned_op_ms(const Point& p);

// The CSV columns of pkbench_launch (metadata columns last).
const std::vector<std::string>& launch_columns();

}  // namespace pk::launch
