#include "microbench/fused/torch_ref.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "microbench/harness/csv_table.h"
#include "microbench/harness/tidy_csv.h"

namespace pk::fused {

namespace {

constexpr const char* kRefColumns[] = {"ref_tool", "ref_time_us", "ref_ratio"};

double positive_number(const std::string& path, size_t line, const std::string& column, std::string_view cell) {
  const std::string s(cell);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || !(v > 0))
    throw std::runtime_error(path + ":" + std::to_string(line) + ": " + column + " '" + s + "' is not a positive number");
  return v;
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The reference columns in the header (where missing) and in every row (empty where unset).
void add_ref_columns(TextCsv& csv) {
  for (auto& row : csv.rows)
    for (const char* c : kRefColumns) row.emplace(c, "");
  for (const char* c : kRefColumns)
    if (std::find(csv.header.begin(), csv.header.end(), c) == csv.header.end()) {
      // Before the metadata (tidy_csv.h), as the study's schema places them; else at the end.
      const auto& meta = metadata_columns();
      auto at = std::find_if(csv.header.begin(), csv.header.end(),
                             [&](const std::string& h) { return !meta.empty() && h == meta.front(); });
      csv.header.insert(at, c);
    }
}

void fill(std::map<std::string, std::string>& row, const TorchRow& t) {
  const double ours = std::stod(row.at("time_us_median"));
  row["ref_tool"] = t.tool();
  row["ref_time_us"] = fmt_num(t.time_us);
  row["ref_ratio"] = fmt_num(ours / t.time_us, 4);
}

bool ok_timed(const std::map<std::string, std::string>& row) {
  const auto s = row.find("status"), t = row.find("time_us_median");
  if (s == row.end() || s->second != "ok" || t == row.end()) return false;
  try {
    return std::stod(t->second) > 0;
  } catch (const std::exception&) {
    return false;
  }
}

int64_t int_cell(const std::map<std::string, std::string>& row, const std::string& c) {
  const auto it = row.find(c);
  if (it == row.end() || it->second.empty()) return -1;
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    return -1;
  }
}

std::string cell(const std::map<std::string, std::string>& row, const std::string& c) {
  const auto it = row.find(c);
  return it == row.end() ? "" : it->second;
}

}  // namespace

std::vector<TorchRow> read_torch_csv(const std::string& path) {
  const std::vector<std::string> need = {"tool", "torch_version", "op", "impl", "launch_mode", "gpus", "m", "n", "k",
                                         "bytes", "time_us_median", "status"};
  CsvTable t = [&] {
    try {
      return CsvTable::read(path, need);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string(e.what()) + " (not ref_torch.py's CSV?)");
    }
  }();
  std::vector<TorchRow> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "status") != "ok") continue;
    if (t.text(i, "tool") != "pytorch")
      throw std::runtime_error(path + ":" + std::to_string(t.line_of(i)) + ": tool '" + std::string(t.text(i, "tool")) +
                               "' is not pytorch");
    TorchRow r;
    r.version = std::string(t.text(i, "torch_version"));
    r.op = std::string(t.text(i, "op"));
    r.impl = std::string(t.text(i, "impl"));
    r.launch_mode = std::string(t.text(i, "launch_mode"));
    auto integer = [&](const char* c) -> int64_t {
      const std::string_view v = t.text(i, c);
      return v.empty() ? 0 : static_cast<int64_t>(positive_number(path, t.line_of(i), c, v));
    };
    r.gpus = integer("gpus");
    r.m = integer("m"), r.n = integer("n"), r.k = integer("k"), r.bytes = integer("bytes");
    r.time_us = positive_number(path, t.line_of(i), "time_us_median", t.text(i, "time_us_median"));
    out.push_back(std::move(r));
  }
  return out;
}

TextCsv read_text_csv(const std::string& path) {
  TextCsv csv;
  csv.header = CsvTable::read(path, std::vector<std::string>{}).header();
  const CsvTable t = CsvTable::read(path, csv.header);
  for (size_t i = 0; i < t.rows(); ++i) {
    std::map<std::string, std::string> row;
    for (const auto& c : csv.header) row[c] = std::string(t.text(i, c));
    csv.rows.push_back(std::move(row));
  }
  return csv;
}

void write_text_csv(const std::string& path, const TextCsv& csv) {
  std::ostringstream o;
  o << csv_line(csv.header) << "\n";
  for (const auto& r : csv.rows) {
    std::vector<std::string> cells;
    for (const auto& c : csv.header) cells.push_back(cell(r, c));
    o << csv_line(cells) << "\n";
  }
  write_file_atomically(path, o.str());
}

std::string torch_counterpart_fused(const std::string& op, const std::string& impl, const std::string& overlap) {
  if (overlap == "component" || impl == "tuned" || overlap == "tuned") return "";
  const bool cublas_nccl = impl == "cublas_nccl";
  if (op == "gemm_rs") return cublas_nccl ? "matmul_then_reduce_scatter" : "fused_matmul_reduce_scatter";
  if (op == "ag_gemm") return cublas_nccl ? "all_gather_then_matmul" : "fused_all_gather_matmul";
  return "";  // gemm_ar: PyTorch has no fused GEMM + all-reduce
}

std::string torch_counterpart_collective(const std::string& collective, const std::string& impl) {
  if (collective != "all_reduce") return "";
  if (starts_with(impl, "one_shot")) return "one_shot_all_reduce";
  if (starts_with(impl, "two_shot")) return "two_shot_all_reduce_";
  return "";
}

int merge_torch_fused(TextCsv& csv, const std::vector<TorchRow>& torch) {
  add_ref_columns(csv);
  int filled = 0;
  for (auto& row : csv.rows) {
    if (!ok_timed(row)) continue;
    const std::string impl = torch_counterpart_fused(cell(row, "op"), cell(row, "impl"), cell(row, "overlap"));
    if (impl.empty()) continue;
    for (const TorchRow& t : torch)
      if (t.op == cell(row, "op") && t.impl == impl && t.launch_mode == "eager" && t.gpus == int_cell(row, "gpus") &&
          t.m == int_cell(row, "m") && t.n == int_cell(row, "n") && t.k == int_cell(row, "k")) {
        fill(row, t);
        ++filled;
        break;
      }
  }
  return filled;
}

int merge_torch_collectives(TextCsv& csv, const std::vector<TorchRow>& torch) {
  add_ref_columns(csv);
  int filled = 0;
  for (auto& row : csv.rows) {
    if (!ok_timed(row) || cell(row, "dtype") != "bf16") continue;
    const std::string impl = torch_counterpart_collective(cell(row, "collective"), cell(row, "impl"));
    if (impl.empty()) continue;
    for (const TorchRow& t : torch)
      if (t.op == "all_reduce" && t.impl == impl && t.launch_mode == cell(row, "launch_mode") &&
          t.gpus == int_cell(row, "gpus") && t.bytes == int_cell(row, "bytes")) {
        fill(row, t);
        ++filled;
        break;
      }
  }
  return filled;
}

}  // namespace pk::fused
