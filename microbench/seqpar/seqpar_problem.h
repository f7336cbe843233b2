#pragma once
// Plain C++ side of the sequence-parallel study's ring-attention KV pass (the CPU tests build
// it): the shape, the schedules (the registry, seqpar_list.h), the points of a run and their
// names, the presets, the bytes a step moves over the links (computed), the CSV columns.
// Everything refused here throws pk::ArgError naming the flag.
#include <cstdint>
#include <string>
#include <vector>

namespace pk::seqpar {

struct RingShape {
  int batch = 16;     // B
  int heads = 16;     // H (every rank holds every head: ring attention splits S only)
  int head_dim = 128; // D
  int seq = 0;        // S per rank (tokens)
  int ranks = 2;      // N
  int64_t bh() const { return int64_t(batch) * heads; }
  // One K/V block: (B H, 2, S, D) bf16, what one ring step moves per rank.
  uint64_t block_bytes() const { return uint64_t(bh()) * 2 * uint64_t(seq) * head_dim * 2; }
  uint64_t q_bytes() const { return uint64_t(bh()) * seq * head_dim * 2; }
  // The stand-in's output: (B H S, 512) bf16.
  uint64_t c_bytes() const { return uint64_t(bh()) * seq * 512 * 2; }
  // Attention's matrix products per step per rank: Q K^T and P V, 2 S^2 D each, per head.
  double step_flops() const { return 4.0 * double(bh()) * double(seq) * double(seq) * head_dim; }
};

// ArgError unless the stand-in and the ring can run it: D a multiple of 64 up to 256, S a
// multiple of 256 (the GEMM's tiles), 2 <= N <= 8, B H >= 1, blocks under 2^40 bytes.
void check_shape(const RingShape& s);

// The schedules of one ring pass, as the registry declares them (seqpar_list.h).
struct ImplInfo {
  std::string name, family;
  bool baseline;   // a reference row, not a design of ours
  bool takes_sms;  // its communication SM count is a knob (--sms)
  bool computes;   // runs the stand-in (copy_only does not)
  bool moves;      // moves the blocks (compute_only does not)
  std::string summary;
};
const std::vector<ImplInfo>& impl_infos();
const ImplInfo& impl_info(const std::string& name);  // ArgError naming --impls

struct Point {
  std::string impl;
  int seq = 0;    // S per rank
  int heads = 0;  // H
  int sms = 0;    // communication SMs (inter_sm); 0: auto
  std::string name() const;  // seqpar/ring_kv/<impl>[sms=N]/H<heads>/S<seq>
};

struct Grid {
  std::vector<std::string> impls;
  std::vector<int> seqs, heads, sms;  // sms: 0 = auto
};
// Every (impl, H, S, sms) the grid names, in run order: per H and S, the implementations in
// registry order, inter_sm once per SM count (the others once, at their own grid).
std::vector<Point> build_points(const Grid& g);

// Presets: what a run measures where the flags leave it out (flags replace a field in every
// grid of the preset).
struct GridText {
  std::string impls, seqs, heads, sms;
};
struct Preset {
  std::string name, help;
  std::vector<GridText> grids;
};
const std::vector<Preset>& presets();
const Preset& preset(const std::string& name);  // ArgError naming --preset
std::vector<Point> plan_points(const Preset& p, const GridText& flags);

// --list's estimate of one pass (milliseconds) on `ranks` GPUs: the stand-in at 600 TFLOP/s and
// the transfers at 150 GB/s, summed (the sequential bound).
double planned_pass_ms(const RingShape& s, const std::string& impl);

// The communication SMs of inter_sm when --sms says auto: an eighth of the rank's SMs, 4..32.
int auto_sms(int budget);

// NVLink bytes per useful byte of a schedule at S (computed: no counter is read). A ring step's
// useful bytes are one block; staging schedules move it once (1); intra_sm reads each K/V tile
// once per 128-row Q tile of its head from the peer, which caches it only in its own L2 (the
// "far side"): S / 128; compute_only moves none (0).
double link_bytes_per_useful(const std::string& impl, int seq);
std::string link_bytes_basis(const std::string& impl);

// The CSV columns of pkbench_seqpar (metadata columns last).
const std::vector<std::string>& seqpar_columns();

}  // namespace pk::seqpar
