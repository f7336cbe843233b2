// pkbench_transfer_reader_bench: how fast the transfer study's analysis (the reader the sweep
// drivers use, Table 1, the tuning table) digests a large results CSV (a benchmark, not a test;
// microbench/transfer/bench-sweeps.sh runs it).
//   pkbench_transfer_reader_bench --generate ROWS TEMPLATE.csv OUT.csv   # ROWS rows cycled from a real transfer CSV
//   pkbench_transfer_reader_bench CSV                                     # read + summary + tuning table, timed
// Generated rows keep the template's columns and values except `sweep` (one per pass over
// the template, so every point stays distinct), the message size (each pass shifts it by a
// power of two, spreading rows over buckets) and a deterministic +-1 % on the timings.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"
#include "microbench/harness/tool_cli.h"
#include "microbench/transfer/transfer_analysis.h"

using namespace pk;
using namespace pk::transfer;
using Clock = std::chrono::steady_clock;

static const char* kUsage =
    "usage: pkbench_transfer_reader_bench --generate ROWS TEMPLATE.csv OUT.csv\n"
    "       pkbench_transfer_reader_bench CSV\n";

static double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int main(int argc, char** argv) {
  ToolCli cli(argv[0], kUsage);
  long long rows = 0;
  std::string csv, out;  // the CSV read, or --generate's TEMPLATE.csv and OUT.csv
  CLI::Option* generate = cli.app().add_option("--generate", rows)->check(positive_integer());
  cli.app().add_option("CSV", csv)->required();
  cli.add_output("OUT.csv", &out);
  cli.parse(argc, argv);
  if (*generate && out.empty()) cli.refuse("--generate ROWS needs TEMPLATE.csv and OUT.csv");
  if (!*generate && !out.empty()) cli.refuse("unexpected argument '" + out + "' (OUT.csv goes with --generate)");
  try {
    if (*generate) {
      const TransferData d = read_transfer(csv);  // checks the template
      std::ifstream in(csv);
      std::string header, line;
      std::getline(in, header);
      std::vector<std::vector<std::string>> tmpl;
      while (std::getline(in, line))
        if (!line.empty()) tmpl.push_back(split_cells(line));
      const std::vector<std::string> h = split_cells(header);
      auto col = [&](const char* n) {
        for (size_t i = 0; i < h.size(); ++i)
          if (h[i] == n) return static_cast<int>(i);
        throw std::runtime_error(std::string("template lacks column ") + n);
      };
      const int c_sweep = col("sweep"), c_msg = col("message_bytes"), c_med = col("time_us_median"),
                c_gbps = col("gbps");
      std::string text = header + "\n";
      text.reserve(static_cast<size_t>(rows) * (line.size() + 16));
      uint64_t seed = 12345;
      for (long long i = 0; i < rows; ++i) {
        auto cells = tmpl[static_cast<size_t>(i) % tmpl.size()];
        const long long pass = i / static_cast<long long>(tmpl.size());
        cells[c_sweep] = cells[c_sweep] + "_" + std::to_string(pass);
        if (!cells[c_msg].empty() && pass % 4) cells[c_msg] = std::to_string(std::stoull(cells[c_msg]) << (pass % 4));
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const double f = 1 + ((seed >> 33) % 2001 - 1000) * 1e-5;
        if (!cells[c_med].empty()) cells[c_med] = pk::fmt_num(std::stod(cells[c_med]) * f);
        if (!cells[c_gbps].empty()) cells[c_gbps] = pk::fmt_num(std::stod(cells[c_gbps]) / f);
        for (size_t k = 0; k < cells.size(); ++k) text += (k ? "," : "") + cells[k];
        text += '\n';
        if ((i + 1) % 250000 == 0) std::fprintf(stderr, "generated %lld of %lld rows\n", i + 1, rows);
      }
      pk::write_file_atomically(out, text);
      std::printf("wrote %s: %lld rows from %zu template rows (%s)\n", out.c_str(), rows, tmpl.size(),
                  d.machine.describe().c_str());
      return 0;
    }
    const auto t0 = Clock::now();
    const TransferData d = read_transfer(csv);
    const double t_read = since(t0);
    auto t1 = Clock::now();
    const auto s = summarize_mechanisms(d.rows);
    const double t_sum = since(t1);
    t1 = Clock::now();
    const TuningTable t = transfer_tuning(d);
    const std::string csv = table_csv(t);
    const double t_tune = since(t1);
    std::printf("%zu rows (%zu ok): read %.3f s, Table-1 summary %.3f s (%zu mechanisms), tuning table %.3f s (%zu rows); "
                "total %.3f s\n",
                d.total, d.rows.size(), t_read, t_sum, s.size(), t_tune, t.rows.size(), since(t0));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pkbench_transfer_reader_bench: error: %s\n", e.what());
    return 1;
  }
}
