#pragma once
// Plain C++ side of the fused study (no GPU, CPU-tested): the three operators and their local
// shapes, the checks that refuse a shape the kernels cannot run, the schedules and their
// knobs declared once (the point grid, the point names and the CSV columns derive from the
// declarations, like the transfer study's mechanisms), and the bytes each operator moves.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "microbench/gemm/gemm_problem.h"

namespace pk::fused {

using gemm::Shape;

// ---- operators ----
enum class Op { gemm_rs, ag_gemm, gemm_ar };
const std::vector<Op>& all_ops();
std::string op_name(Op op);  // "gemm_rs", "ag_gemm", "gemm_ar"
Op parse_op(const std::string& s);  // ArgError naming --ops
std::string op_description(Op op);

// The paper's local shapes (Figures 7-9) with 8 GPUs replaced by `world`:
//   ag_gemm  N x N/world x N     (gathered A is N x N; B and C are column shards)
//   gemm_rs  N x N x N/world     (K is sharded; C's rows are scattered)
//   gemm_ar  N x N x N/world
Shape paper_shape(Op op, int size_n, int world);

// The fused kernels' tile (kernels/fused/fused_params.cuh: the GEMM's c1 configuration).
inline constexpr int kTileM = 128, kTileN = 256, kTileK = 64;

// Refuses, with ArgError naming `flag` and every reason, a local shape that is not whole
// tiles or whose row shards (C's rows for RS/AR, A's for AG) are not whole tile rows per GPU.
// world <= 0: the GPU count is not known yet; only the tile is checked.
void check_shape(Op op, const Shape& s, int world, const std::string& flag);
// The same for a paper size N (the derived shape, and N itself divisible by the GPU count;
// with world <= 0, the shape N/1 is checked against the tile).
void check_size(Op op, int size_n, int world, const std::string& flag);

// Rows of the row shard each GPU owns: C's (RS, AR) or A's (AG).
int shard_rows(Op op, const Shape& s, int world);

// Bytes one GPU must send to (= receive from) its peers for the operator, the minimum any
// schedule moves: RS (w-1)/w of C, AG (w-1)/w of A, AR 2 (w-1)/w of C (reduce-scatter +
// all-gather); bf16 elements.
double collective_bytes(Op op, const Shape& s, int world);
// Bytes the intra-SM schedule sends per GPU: RS as the collective, AR every tile to every
// peer ((w-1) C), AG every remote tile of A once per tile column of C.
double intra_sm_bytes(Op op, const Shape& s, int world);

// ---- knobs and schedules (declared once) ----
struct Knob {
  std::string name;  // CSV column and point-name key
  std::string flag;  // command-line flag (without "--"), a list or range
  std::string unit;
  std::string help;
  int lo = 1, hi = 1;  // allowed values
};

namespace knobs {
extern const Knob comm_sms;  // SMs given to communication (inter-SM communicator blocks; NCCL's CTAs)
extern const Knob chunks;    // pipeline chunks per row shard (overlapped baselines, copy engine)
}  // namespace knobs

struct KnobUse {
  const Knob* knob;
  std::string default_list;  // the values a point grid takes when the flag is not given
  // The one value a program without a tuning table launches: the `tuned` rows' "default"
  // configuration (fused_tuned.h). 0: none declared.
  int untuned = 0;
};

enum class Kind { component, baseline, fused };
std::string kind_name(Kind k);
// What a schedule leaves in the output buffers: the whole operator, or one component's part
// (the GEMM's partial C, or the collective applied to the GEMM's reference result).
enum class Computes { whole_op, gemm, collective };
struct Schedule;
// The CSV's `overlap` column: the fused kernels' class (intra_sm / inter_sm), else "baseline"
// or "component" (a GEMM or a collective alone: never a solution of the fused problem).
std::string overlap_of(const Schedule& s);

// One schedule, declared in its own file microbench/fused/schedules/<name>.cu beside the
// factory that builds it, and listed in schedule_list.h (README.md: adding a schedule).
struct Schedule {
  // Every member has a default: a declaration names only what differs.
  std::string name{};  // set from the list line
  Kind kind = Kind::fused;
  std::string summary{};
  std::vector<Op> ops = all_ops();  // operators it implements
  std::vector<KnobUse> knobs{};
  bool needs_nccl = false;          // skipped, with the reason, in a build without NCCL
  Computes computes = Computes::whole_op;
  // This suite's kernels read or write the peers' memory directly: skipped where a GPU
  // cannot reach another's (NCCL and cuBLASLt alone do not need to).
  bool peer_access = true;
  // Kind::fused: the overlap class the sweeps compare it in; "" = its own name.
  std::string overlap{};
  // Bytes one GPU sends per operation (the CSV's comm_bytes; 0 for a GEMM alone).
  double (*comm_bytes)(Op op, const Shape& s, int world) = collective_bytes;
  bool supports(Op op) const;
  bool has_knob(const std::string& name) const;
};

// Every schedule of schedule_list.h in run order: components first, then baselines, then the
// fused kernels (list order within a kind), so every ratio column finds the rows it divides by.
const std::vector<Schedule>& schedules();
const Schedule& schedule(const std::string& name);  // ArgError if unknown
const Schedule* find_schedule(const std::string& name);  // nullptr if unknown
std::vector<std::string> schedule_names();
// Every knob of every schedule, first declaration first: the knob columns, flags, name order.
const std::vector<const Knob*>& all_knobs();
// Parses a knob's list (args.h grammar) and checks each value against lo..hi (ArgError
// naming the flag).
std::vector<int> parse_knob_list(const Knob& k, const std::string& list);

// ---- points ----
// What a tuning table answered for a `tuned` point (fused_tuned.h).
struct Tuning {
  std::string schedule;  // the answered schedule, run with the point's knobs ("" when refused)
  std::string answer;    // the `tuning` column: what, basis, source rows, table, machine, default
  std::string refused;   // why nothing runs: the point is skipped with it
};

struct Point {
  Op op = Op::gemm_rs;
  std::string schedule;  // "tuned" for a tuned point
  Shape shape;
  int size_n = 0;  // the paper's N this shape came from (0: given as MxNxK)
  std::map<std::string, int> knobs;
  std::optional<Tuning> tuning;  // tuned points only
  int knob(const std::string& name, int missing = 0) const;
  std::string name() const;  // "fused/gemm_rs/inter_sm/8192x8192x4096/comm_sms:16"
};

struct GridSpec {
  std::vector<Op> ops;
  std::vector<std::string> schedules;
  std::vector<int> sizes;      // paper N values
  std::vector<Shape> shapes;   // explicit local shapes (every operator)
  std::map<std::string, std::vector<int>> knob_values;  // knob name -> values (from flags or defaults)
};
// For each operator, each shape (sizes first, then explicit shapes), every schedule in run
// order that implements the operator, the knob product. Shapes are checked (ArgError);
// world <= 0 checks the tile only (the paper shapes are then planned for one GPU).
std::vector<Point> build_points(const GridSpec& g, int world);

// The tidy CSV schema of pkbench_fused (knob columns from all_knobs(), metadata last).
const std::vector<std::string>& fused_columns();
// What the sweeps accept in a fused CSV (registered in sweeps/CMakeLists.txt): fused_columns()
// plus the columns older versions wrote and this one no longer does (the per-row speedups and
// best baseline, now the sweeps' own verdicts), so the committed CSVs stay readable. Nothing
// reads the retired ones.
const std::vector<std::string>& fused_read_columns();

// Per-element tolerance of a reduced output against the fp32-accumulated reference: bf16
// rounding of each GPU's partial plus one rounding per add at the destination.
double reduction_tolerance(int world);

// ---- per-point warm-up ----
// A GEMM-bound point draws the GPU's full power: its clocks settle (power-capped, below the
// idle boost clock) only after some time of such work, and its samples must see that steady
// state. The full warm-up (--warmup-ms) brings the GPU there when it may have idled or run
// other work: before a round's first point, after a gap, when the operator or shape changes
// (another GEMM, another power draw), or when the previous point's last operation ended more
// than max_idle_ms before this point's first. Otherwise the previous point's timed samples and
// verified run kept the GPU at work until moments ago, and a short warm-up (enough for the
// calibration of operations per sample) suffices. --warmup-every-point keeps the full one on
// every point.
struct WarmupPolicy {
  double full_ms = 100;      // --warmup-ms
  double short_ms = 2;       // --short-warmup-ms
  bool every_point = false;  // --warmup-every-point
  double gap_ms = 0;         // --gap-ms: the GPU idles that long before every point
  double max_idle_ms = 10;
};
struct WarmupState {
  bool first_point = true;     // no point of this round has been timed yet
  bool shape_changed = false;  // the previous timed point was of another operator or shape
  double idle_ms = 0;          // from the last operation of any point to this point's first
};
// The warm-up a point runs (ms), and why: "full: <reason>" or "short".
struct WarmupChoice {
  double ms = 0;
  std::string why;
};
WarmupChoice point_warmup(const WarmupPolicy& policy, const WarmupState& state);

}  // namespace pk::fused
