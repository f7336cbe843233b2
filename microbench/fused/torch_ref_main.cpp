// pkbench_torch_ref: PyTorch's figures (microbench/fused/ref_torch.py's CSV) merged into the
// fused and collectives CSVs as the reference columns (torch_ref.h), and the ratios printed,
// one line per row filled.
//   pkbench_torch_ref --torch=FILE [--fused=CSV] [--collectives=CSV]
// Each study CSV is rewritten in place (temporary file, rename). Exit 0: some row has a
// reference; 1: none matched (different shapes, sizes or GPU count); 2: bad input.
#include <algorithm>
#include <cstdio>
#include <tuple>
#include <string>
#include <vector>

#include "microbench/fused/torch_ref.h"
#include "microbench/harness/tool_cli.h"

using namespace pk::fused;

namespace {

constexpr const char* kUsage =
    "usage: pkbench_torch_ref --torch=FILE [--fused=CSV] [--collectives=CSV]\n"
    "  merges ref_torch.py's CSV (FILE) into pkbench_fused's and pkbench_collectives' CSVs, in place:\n"
    "  ref_tool, ref_time_us (PyTorch's median) and ref_ratio (the row's time_us_median / it) on every\n"
    "  ok row with a PyTorch counterpart (fused: async TP for ours and the baselines, matmul then NCCL\n"
    "  for cublas_nccl; collectives: symm_mem one_shot / two_shot all-reduce for ours)\n";

void print_filled(const TextCsv& csv, const char* what_col) {
  for (const auto& r : csv.rows) {
    const auto t = r.find("ref_tool");
    if (t == r.end() || t->second.rfind("pytorch", 0) != 0) continue;
    std::printf("%-12s %-26s %-8s %-18s %12s %12s %8s  %s\n", r.at(what_col).c_str(), r.at("impl").c_str(),
                r.count("launch_mode") ? r.at("launch_mode").c_str() : "eager",
                r.count("bytes") && !r.at("bytes").empty() ? r.at("bytes").c_str()
                                                           : (r.at("m") + "x" + r.at("n") + "x" + r.at("k")).c_str(),
                r.at("time_us_median").c_str(), r.at("ref_time_us").c_str(), r.at("ref_ratio").c_str(),
                t->second.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  pk::ToolCli cli(argv[0], kUsage);
  std::string torch, fused, coll;
  cli.app().add_option("--torch", torch);
  // The study CSVs are rewritten in place: outputs as well as inputs.
  cli.add_output("--fused", &fused);
  cli.add_output("--collectives", &coll);
  cli.parse(argc, argv);
  if (torch.empty()) cli.refuse("--torch: missing");
  if (fused.empty() && coll.empty()) cli.refuse("--fused or --collectives: at least one study CSV is needed");
  std::vector<TorchRow> rows;
  TextCsv f, c;
  try {
    rows = read_torch_csv(torch);
  } catch (const std::exception& e) {
    cli.refuse("--torch=" + torch + ": " + e.what());
  }
  try {
    if (!fused.empty()) f = read_text_csv(fused);
  } catch (const std::exception& e) {
    cli.refuse("--fused=" + fused + ": " + e.what());
  }
  try {
    if (!coll.empty()) c = read_text_csv(coll);
  } catch (const std::exception& e) {
    cli.refuse("--collectives=" + coll + ": " + e.what());
  }
  for (const auto& [flag, csv, need] : {std::tuple{"--fused", &f, "op"}, std::tuple{"--collectives", &c, "collective"}}) {
    if (csv->header.empty()) continue;
    for (const char* col : {need, "impl", "gpus", "status", "time_us_median"})
      if (std::find(csv->header.begin(), csv->header.end(), col) == csv->header.end())
        cli.refuse(std::string(flag) + ": no '" + col + "' column (not that study's CSV)");
  }
  // Each study CSV given: merged, written back in place, its rows printed.
  struct Study {
    const std::string& path;
    TextCsv& csv;
    int (*merge)(TextCsv&, const std::vector<TorchRow>&);
    const char* what;  // the column that names a row's operator or collective
  };
  int filled = 0;
  try {
    for (const Study& s : {Study{fused, f, merge_torch_fused, "op"}, Study{coll, c, merge_torch_collectives, "collective"}}) {
      if (s.path.empty()) continue;
      const int n = s.merge(s.csv, rows);
      write_text_csv(s.path, s.csv);
      print_filled(s.csv, s.what);
      std::printf("%d rows have a PyTorch reference (%s)\n", n, s.path.c_str());
      filled += n;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 2;
  }
  return filled > 0 ? 0 : 1;
}
