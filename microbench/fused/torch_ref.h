#pragma once
// PyTorch as a reference tool (microbench/fused/ref_torch.py, the driver), read back the way
// nccl-tests' output is (microbench/collectives/nccltests_output.h): its rows merged into the
// fused and collectives CSVs as the reference columns ref_tool, ref_time_us and ref_ratio
// (this row's time_us_median / the tool's median), plain C++.
//
// Which row takes which of PyTorch's figures (same operator, GPU count and shape or bytes):
//   fused gemm_rs / ag_gemm, every row computing the whole operator (impl not a component):
//     cublas_nccl (cuBLAS then NCCL)   <- PyTorch's matmul then NCCL (the same libraries:
//                                         the baseline's cross-check, ~1 expected)
//     every other baseline and kernel  <- PyTorch's async TP (symm_mem.fused_matmul_reduce_scatter,
//                                         fused_all_gather_matmul): ours against it
//   collectives all_reduce, bf16, same launch mode:
//     one_shot* <- symm_mem.one_shot_all_reduce     two_shot* <- symm_mem.two_shot_all_reduce_
// Both sides are CUDA-event medians (the driver: events around back-to-back calls, slowest
// rank per sample; the studies: time_us_median, gated events, slowest rank). NCCL's rows keep
// nccl-tests as their tool (pkbench_coll_ref) and are not touched here.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pk::fused {

struct TorchRow {
  std::string version;  // "2.11.0"
  std::string op;       // gemm_rs, ag_gemm, all_reduce
  std::string impl;     // fused_matmul_reduce_scatter, one_shot_all_reduce, ...
  std::string launch_mode;
  int64_t gpus = 0, m = 0, n = 0, k = 0, bytes = 0;
  double time_us = 0;  // median
  std::string tool() const { return "pytorch " + version + " " + impl; }
};

// The driver's CSV: its ok rows (skipped and error rows are not references). Throws
// std::runtime_error naming the file and what is wrong (not the driver's CSV, a bad cell).
std::vector<TorchRow> read_torch_csv(const std::string& path);

// A study CSV as text: the header and every row as column -> cell.
struct TextCsv {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};
TextCsv read_text_csv(const std::string& path);
// Written to a temporary file and renamed into place.
void write_text_csv(const std::string& path, const TextCsv& csv);

// PyTorch's implementation that serves as a row's reference ("" when none does).
std::string torch_counterpart_fused(const std::string& op, const std::string& impl, const std::string& overlap);
std::string torch_counterpart_collective(const std::string& collective, const std::string& impl);

// Fills ref_tool, ref_time_us, ref_ratio of every ok row with a counterpart that `torch`
// measured (the columns added to the header where missing). Returns the rows filled.
int merge_torch_fused(TextCsv& csv, const std::vector<TorchRow>& torch);
int merge_torch_collectives(TextCsv& csv, const std::vector<TorchRow>& torch);

}  // namespace pk::fused
