#pragma once
// nvbandwidth, the transfer study's reference tool (as nccl-tests is the collectives'): its
// --json output read back, which of its testcases measures what a transfer row measures, and
// its figures merged into those rows (ref_tool, ref_gbps, ref_ratio). Plain C++: the CPU tests
// drive it with captured output.
//
// A row has a counterpart when it copies what the testcase copies, the way it copies it:
//   - the copy engine (mechanism ce) with one call per nvbandwidth buffer (message_bytes = its
//     -b): device_to_device_memcpy_*_ce and the other *_ce testcases;
//   - the register copy over every SM (mechanism reg, sweep nvbandwidth: every SM, 512 threads
//     a block, its buffer per operation, as nvbandwidth's SM copy kernel): the *_sm testcases;
//   - push = its *_write_* (the source's context issues), pull = *_read_* (the destination's);
//   - one_way = device_to_device_memcpy (the pair's matrix cell), bidir =
//     device_to_device_bidirectional_memcpy (its Total matrix), one_to_all / all_to_one over
//     every GPU = one_to_all_* / all_to_one_* (the root's total; all_to_one_read moves the
//     root's data to every peer, so it is our one_to_all pull), local = device_local_copy.
// ref_gbps is the tool's figure in the row's `gbps` unit (GB/s per direction: a bidirectional
// total halved, a fan's total over its flows); ref_ratio = gbps / ref_gbps; the sweeps judge
// it (verdict.h: within 5 %).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pk::transfer {

struct NvbTestcase {
  std::string name, status;
  std::vector<std::vector<double>> matrix;  // GB/s; < 0: N/A. Several matrices stacked (bidir: the last is Total)
};
struct NvbRun {
  std::string version;       // "v0.8" ("" if absent)
  uint64_t buffer_bytes = 0;  // -b in bytes (the JSON's bufferSize, MiB)
  std::vector<NvbTestcase> testcases;
};
// Throws std::runtime_error naming what it cannot read.
NvbRun parse_nvbandwidth_json(const std::string& text);

using CsvRow = std::map<std::string, std::string>;

// The testcase measuring the row (above), "" for none; `fan_count`: GPUs the tool ran on.
struct NvbMatch {
  std::string testcase;
  int row = 0, col = 0;  // the cell of the matrix (the last `gpus` rows of a stacked one)
  double divide = 1;     // the tool's figure / divide = the row's gbps unit
};
NvbMatch nvbandwidth_counterpart(const CsvRow& row, uint64_t buffer_bytes, int gpus);

// The testcases the rows have counterparts in (what to run), in a stable order.
std::vector<std::string> nvbandwidth_testcases(const std::vector<CsvRow>& rows, uint64_t buffer_bytes, int gpus);

// Fills the reference columns of every row with a counterpart in `runs` (the tool run several
// times: the median of their figures, ref_tool says how many). Returns the rows filled.
int merge_nvbandwidth(std::vector<CsvRow>& rows, const std::vector<NvbRun>& runs);

}  // namespace pk::transfer
