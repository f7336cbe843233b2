#pragma once
// The paper's cost model (section 3.1.1) for the fused kernels, with every ceiling read from
// CSVs this suite measured on the same machine, never typed in:
//
//   T_kernel = T_launch + max(T_comp, T_mem, T_comm) + T_non-overlap + T_sync
//
//   T_launch       back-to-back kernel launch (sync.csv: host/kernel_launch/back_to_back),
//                  once per launch the schedule makes (intra-SM RS/AR: the zeroing + the kernel)
//   T_comp         2MNK / R(compute SMs) in whole waves: R from this suite's GEMM (fused.csv
//                  gemm_pk rows at every SM for the shape, else gemm.csv), scaled by gemm.csv's
//                  SM-count curve; ceil(tiles / compute SMs) waves of the all-SM wave time (a
//                  term the paper's formula leaves out: the first H200x2 run measured 4096x2048
//                  x4096 AG+GEMM 1.5x slower on 116-124 SMs, 3 waves of 256 tiles against 2)
//   T_mem          HBM bytes / B_mem: A, B, C (+ the partial C written and read back by the
//                  inter-SM reductions, + the zeroed output of the intra-SM ones); B_mem = twice
//                  the best local copy rate of transfer.csv (a copy reads and writes each byte)
//   T_comm         bytes each GPU sends per direction / B_comm: intra-SM uses the best
//                  device-initiated bidirectional rate (every GPU sends at once). Inter-SM
//                  GEMM+RS / GEMM+AR: the rate that operator's communicator reached on as many
//                  comm SMs with the GEMM reduced to nothing (the communicator-only rows,
//                  pkbench_fused inter_sm at K = 64: the same bytes / the row's median time),
//                  linear in the SM count between measured counts, the smallest count's per-SM
//                  rate below it, the largest count's rate above it (interpolate()). Inter-SM
//                  AG+GEMM: the rate its comm SMs reach in transfer.csv's TMA SM sweep, capped
//                  by the bidirectional rate
//   T_non-overlap  what cannot overlap: the last wave's communication after the last tile
//                  (inter-SM: the communicator's last units, at T_comm's rate; intra-SM: the
//                  last reduce-adds), and the zeroing of the output before the intra-SM reductions
//   T_sync         the cross-GPU handshakes on the critical path (sync.csv's one-way cross-GPU
//                  flag latency) and, inter-SM, one inter-SM flag hand-off (sync.csv inter_sm)
//
// Plain C++ (the CPU tests check the arithmetic on fixture CSVs); reads with the sweeps'
// CsvTable, by column name.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "microbench/fused/fused_problem.h"

namespace pk::fused::model {

using Curve = std::vector<std::pair<double, double>>;  // (x, y), x ascending

// Linear interpolation; below the first point y scales with x (a rate per SM), beyond the
// last it stays at the last value.
double interpolate(const Curve& c, double x);

struct Ceilings {
  // Compute: the GEMM's TFLOP/s at every SM per shape ("MxNxK" -> TFLOP/s), and the SM-count
  // curve (SMs -> TFLOP/s relative to its value at all SMs) of one shape of gemm.csv.
  std::vector<std::pair<std::string, double>> gemm_full;  // shape -> TFLOP/s at all SMs
  double gemm_full_default = 0;                           // the largest shape's, for shapes not measured
  Curve gemm_sm_fraction;                                 // SMs -> fraction of the all-SM rate
  double gemm_sm_curve_tiles = 0;                         // output tiles of the curve's shape
  int sm_count = 0;
  // Transfers (GB/s per direction).
  double link_bidir_gbps = 0;   // best device-initiated rate with both GPUs sending
  double link_oneway_gbps = 0;  // best device-initiated one-way rate
  Curve link_by_sms;            // TMA, one way: SMs -> GB/s
  // The inter-SM reduction communicators alone (read_communicator_rates): per operator
  // (gemm_rs, gemm_ar) and GPU count, comm SMs -> GB/s in T_comm's bytes.
  std::map<std::pair<Op, int>, Curve> communicator;
  std::vector<std::string> communicator_commits;  // the rows' git_commit stamps, sorted, once each
  double hbm_gbps = 0;          // local HBM traffic rate (2 x the best local copy)
  // Latencies (ns).
  double launch_ns = 0;
  double sync_gpu_ns = 0;       // inter-SM flag, one way
  double sync_sys_ns = 0;       // cross-GPU flag, one way
  double mbarrier_ns = 0;       // intra-SM (reported beside the paper's 64 ns)
  std::vector<std::string> sources;  // one line per ceiling: the value and the row it came from
  std::vector<std::pair<std::string, std::string>> machines;  // file -> its rows' GPU name
  double gemm_tflops(const Shape& s, int sms) const;
  double comp_us(const Shape& s, int sms) const;  // T_comp: whole waves of tiles on `sms` SMs
};

// Reads the ceilings. fused_csv may be "" (then gemm_csv must give the compute rates) and
// gemm_csv may be "" (then the fused CSV's gemm_pk rows, scaled linearly with the SM count).
// Throws std::runtime_error naming the file and what is missing.
Ceilings read_ceilings(const std::string& gemm_csv, const std::string& transfer_csv, const std::string& sync_csv,
                       const std::string& fused_csv);

// The communicator-only rows (a pkbench_fused CSV: inter_sm rows of gemm_rs / gemm_ar at a
// shape whose GEMM is negligible, status ok, 2 or more GPUs) into c.communicator: per row,
// T_comm's bytes for its shape / its median time; the best row per operator, GPU count and SM
// count. Throws std::runtime_error naming the file and the missing column, or that it has no
// such row.
void read_communicator_rates(Ceilings& c, const std::string& comm_only_csv);

struct FusedPoint {
  Op op = Op::gemm_rs;
  std::string schedule;  // intra_sm or inter_sm
  Shape shape;
  int world = 2;
  int compute_sms = 0;
  int comm_sms = 0;
  double measured_us = 0;  // 0: not measured
  std::string gpu;         // gpu_name column
  std::string commit;      // git_commit column ("" where the CSV has none)
};

// Whether p's T_comm comes from the communicator-only rows (inter-SM GEMM+RS / GEMM+AR on 2 or
// more GPUs or ranks).
bool needs_communicator(const FusedPoint& p);

struct Prediction {
  double launch_us = 0, comp_us = 0, mem_us = 0, comm_us = 0, non_overlap_us = 0, sync_us = 0, total_us = 0;
  std::string dominant;  // "comp", "mem" or "comm": the max() term
};

// Throws std::runtime_error for an inter-SM GEMM+RS / GEMM+AR point whose operator and GPU
// count have no communicator-only rate in c.
Prediction predict(const Ceilings& c, const FusedPoint& p);

// Fused rows (schedule intra_sm / inter_sm, status ok) of a pkbench_fused CSV.
std::vector<FusedPoint> read_fused_points(const std::string& fused_csv);

// The number of communication SMs among `candidates` with the least predicted time.
int predict_best_split(const Ceilings& c, FusedPoint p, const std::vector<int>& candidates);

// K from which a GEMM+RS tile's communication hides behind its computation (paper: K >= sR/2B
// with s = 2 bytes, R the GEMM's FLOP/s, B the link's bytes/s): with `world` GPUs only
// (world-1)/world of the tiles leave the GPU, so K >= sR(world-1) / (2 B world).
double hide_k(double tflops, double gbps, int world);

}  // namespace pk::fused::model
