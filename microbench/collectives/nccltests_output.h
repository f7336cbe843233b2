#pragma once
// nccl-tests' text output (its src/util.cu: writeDeviceReport, writeResultHeader,
// writeBenchmarkLine*) read back, and its figures merged into the study's NCCL rows as the
// reference columns (ref_tool, ref_time_us, ref_ratio).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pk::coll {

struct NcclTestsLine {
  uint64_t bytes = 0;  // nccl-tests' "size": the study's `bytes` for every collective
  std::string type;    // bfloat16, float, ...
  double time_us = 0;  // out-of-place (the study's buffers are out of place)
  long long wrong = -1;  // -1: N/A (run with -c 0)
};

struct NcclTestsRun {
  std::string version;     // "2.19.6"
  std::string program;     // "all_reduce_perf"
  int ranks = 0;           // "#  Rank  n ..." lines
  int graph_launches = 0;  // -G; 0: eager
  int iters = 0;           // -n
  std::vector<NcclTestsLine> lines;
  std::string collective() const;  // the study's name: all_reduce, all_gather, ...; "" if none
  std::string tool() const;        // "nccl-tests 2.19.6 all_reduce_perf"
};

// nccl-tests' program of a collective (all_reduce -> all_reduce_perf; all_to_all -> alltoall_perf).
std::string nccltests_program(const std::string& collective);

// Throws std::runtime_error naming the line for anything it cannot read.
NcclTestsRun parse_nccltests_output(const std::string& text);
std::string nccltests_type_of(const std::string& study_dtype);  // bf16 -> bfloat16, fp32 -> float

// Fills ref_tool, ref_time_us, ref_ratio (time_us_nccltests / ref_time_us) of every row of
// `config` (the nccl_config column: default, symmetric, ...) whose collective, dtype, bytes,
// GPU count and launch mode a run in `runs` measured; several such runs (the tool run
// repeatedly): the median of their figures, and ref_tool says how many. Returns the rows filled.
using CsvRow = std::map<std::string, std::string>;
int merge_nccltests(std::vector<CsvRow>& rows, const std::vector<NcclTestsRun>& runs, const std::string& config);

// The study run several times over the same points (ref_check.sh alternates it with the tool,
// REPEATS rounds): into runs[0], each row's time_us_nccltests becomes the median over the runs
// that have that row (same collective, impl, nccl_config, dtype, bytes, gpus, launch_mode, status
// ok) and nccltests_repeats the number of method runs behind it. Returns the rows combined.
int combine_study_runs(std::vector<std::vector<CsvRow>>& runs);

}  // namespace pk::coll
