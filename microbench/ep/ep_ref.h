#pragma once
// DeepEP as a reference tool (deepep.sh runs its tests on the study's shapes): its printed
// figures parsed and put beside our rows of the same shape (ref_tool, ref_sms,
// ref_dispatch_us, ref_combine_us, ref_time_us, ref_speedup = DeepEP's time / ours).
//   intranode normal mode (tests/test_intranode.py, or tests/legacy/ in later versions):
//     "[config] num_tokens=4096, hidden=7168, num_topk=8"
//     "[tuning] Best dispatch (BF16): SMs 24, NVL chunk 8, 321.00 GB/s (NVL), t: 456.78 us"
//     "[tuning] Best combine: SMs 24, NVL chunk 8: 321.00 GB/s (NVL), t: 456.78 us"
//   -> rows impl ht, dispatch_combine, uniform routing, the same T, H, TopK and ranks.
//   low-latency mode (test_low_latency.py), every rank prints
//     "[rank 0] Dispatch bandwidth: 40.00 GB/s, avg_t=123.45 us | Combine bandwidth: ..., avg_t=234.56 us"
//   -> the slowest rank's (our step is the slowest rank's); rows impl ll. Its timed dispatch
//   sends FP8 (ours bf16: twice the bytes), its combine bf16: the tool name says so.
// DeepEP's normal-mode dispatch returns one row per (token, rank) and leaves the per-expert
// permute to the caller; ours fans out into the per-expert layout inside the timed dispatch.
#include <string>

namespace pk::ep {

struct DeepEpFigures {
  bool normal = false, low_latency = false;
  int tokens = 0, hidden = 0, topk = 0;  // the normal run's [config]
  int sms = 0;
  double dispatch_us = 0, combine_us = 0;
  int ll_tokens = 0;  // the low-latency run's T (its command line: not printed)
  double ll_dispatch_us = 0, ll_combine_us = 0;
};
// Throws std::runtime_error naming the file when it is unreadable or holds none of the lines.
void parse_deepep_intranode(const std::string& path, DeepEpFigures& f);
void parse_deepep_low_latency(const std::string& path, int tokens, DeepEpFigures& f);

// Rewrites the ep CSV at `csv` (atomically) with the figures beside the matching rows; the
// number of rows given a reference. ranks: the DeepEP runs' process count.
int merge_deepep(const std::string& csv, const DeepEpFigures& f, int ranks, const std::string& version);

}  // namespace pk::ep
