#pragma once
// Helpers for the sweep-driver tests: CSVs written from a study's own column declaration
// (so a test never keeps a second copy of a schema), temporary folders, the committed
// results.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "microbench/harness/metadata.h"
#include "microbench/transfer/mechanism.h"

namespace pk::sweeps::testing {

inline std::string fixture(const std::string& name) { return std::string(PKBENCH_FIXTURE_DIR) + "/" + name; }

// A fresh folder under the temporary directory, one per process: ctest runs each test in its
// own process, several at once, and two tests asking for the same name removed each other's files.
inline std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("pkbench_sweeps_test_" + name + "." + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

inline void write(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

using Cells = std::map<std::string, std::string>;

// CSV text with `columns` as the header and one line per row (absent cells empty).
inline std::string csv(const std::vector<std::string>& columns, const std::vector<Cells>& rows) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + columns[i];
  out += "\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      auto it = r.find(columns[i]);
      out += (i ? "," : "") + (it == r.end() ? std::string() : it->second);
    }
    out += "\n";
  }
  return out;
}

// A transfer row with the metadata of one fixture machine filled in.
inline Cells transfer_row(Cells c) {
  Cells base = {{"study", "transfer"},     {"sweep", "tune"},      {"direction", "push"}, {"pattern", "one_way"},
                {"status", "ok"},          {"gpu_name", "NVIDIA H200"}, {"gpu_count", "2"}, {"host", "node1"},
                {"line_rate_gbps", "478"}, {"git_commit", "abc123"}};
  for (auto& [k, v] : c) base[k] = v;
  return base;
}

}  // namespace pk::sweeps::testing
