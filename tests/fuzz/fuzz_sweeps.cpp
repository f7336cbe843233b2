// Fuzz test of the sweep tools' readers and entry points: a few thousand generated CSVs
// (truncated, binary, huge fields, negative and non-finite values, duplicate headers, other
// studies' files, ...) derived from the committed fixtures, each given to every reader and
// to what the tools run after it (summaries, tuning tables, the report). Passes when every
// file is read or refused with a clean error: a std::runtime_error with a message of sane
// length. A crash fails the test by itself; a hang hits CTest's timeout.
//   pkbench_fuzz_sweeps FIXTURE_DIR [FILES] [SEED]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "microbench/collectives/collectives_analysis.h"
#include "microbench/harness/csv_table.h"
#include "microbench/fused/fused_analysis.h"
#include "sweeps/report.h"
#include "sweeps/study_schema.h"
#include "microbench/sync/sync_analysis.h"
#include "microbench/transfer/transfer_analysis.h"
#include "sweeps/tuning_writers.h"

namespace fs = std::filesystem;
using namespace pk;
using namespace pk::sweeps;
using namespace pk::transfer;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : text) {
    if (c == '\n') v.push_back(cur), cur.clear();
    else cur += c;
  }
  if (!cur.empty()) v.push_back(cur);
  return v;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> v(1);
  for (char c : line) {
    if (c == ',') v.emplace_back();
    else v.back() += c;
  }
  return v;
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? std::string(1, sep) : "") + v[i];
  return s;
}

// One mutation of a fixture; `kind` picks which, `rng` everything else.
std::string mutate(const std::string& base, const std::string& other, int kind, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
  std::vector<std::string> lines = lines_of(base);
  if (lines.empty()) return base;
  auto cell_edit = [&](const std::string& value) {
    if (lines.size() < 2) return;
    const size_t r = 1 + pick(lines.size() - 1);
    auto c = cells_of(lines[r]);
    c[pick(c.size())] = value;
    lines[r] = join(c, ',');
  };
  static const char* nasty[] = {"-1", "-0.5", "nan", "NaN", "inf", "-inf", "1e308", "1e-320", "-0",
                                "9223372036854775807", "-9223372036854775808", "18446744073709551616",
                                "0x10", "1,5", "\"q\"", "", " ", "1e", "--", "ok", "skipped", "error", "0"};
  switch (kind) {
    case 0:  // truncated anywhere
      return base.substr(0, pick(base.size() + 1));
    case 1: {  // binary bytes over a stretch
      std::string s = base;
      const size_t at = pick(s.size()), n = 1 + pick(64);
      for (size_t i = 0; i < n && at + i < s.size(); ++i) s[at + i] = static_cast<char>(rng());
      return s;
    }
    case 2: {  // pure noise, sometimes with newlines
      std::string s(pick(4096), '\0');
      for (auto& c : s) c = static_cast<char>(rng());
      return s;
    }
    case 3:  // a huge field (up to 2 MB), sometimes in the header
      if (pick(4) == 0) {
        auto h = cells_of(lines[0]);
        h[pick(h.size())] = std::string(1 + pick(2u << 20), 'h');
        lines[0] = join(h, ',');
      } else {
        cell_edit(std::string(1 + pick(2u << 20), static_cast<char>('a' + pick(26))));
      }
      break;
    case 4:  // negative, non-finite, overflowing or malformed values, several cells
      for (int k = 0, n = 1 + static_cast<int>(pick(6)); k < n; ++k) cell_edit(nasty[pick(std::size(nasty))]);
      break;
    case 5: {  // every number of one column negated
      auto h = cells_of(lines[0]);
      const size_t col = pick(h.size());
      for (size_t r = 1; r < lines.size(); ++r) {
        auto c = cells_of(lines[r]);
        if (col < c.size() && !c[col].empty() && (std::isdigit(static_cast<unsigned char>(c[col][0])))) c[col] = "-" + c[col];
        lines[r] = join(c, ',');
      }
      break;
    }
    case 6: {  // a duplicate header column (and its cells)
      auto h = cells_of(lines[0]);
      const size_t col = pick(h.size());
      for (auto& l : lines) {
        auto c = cells_of(l);
        if (col < c.size()) c.push_back(c[col]);
        l = join(c, ',');
      }
      break;
    }
    case 7:  // another study's file, or its header over these rows, or its rows under this header
      if (pick(3) == 0) return other;
      {
        auto o = lines_of(other);
        if (o.empty()) return other;
        if (pick(2)) lines[0] = o[0];
        else if (o.size() > 1) lines.insert(lines.begin() + 1 + pick(lines.size()), o[1 + pick(o.size() - 1)]);
      }
      break;
    case 8: {  // a column dropped, or cells shifted (an extra or a missing comma)
      const size_t r = pick(lines.size());
      auto c = cells_of(lines[r]);
      if (pick(2)) c.erase(c.begin() + pick(c.size()));
      else c.insert(c.begin() + pick(c.size() + 1), "");
      lines[r] = join(c, ',');
      break;
    }
    case 9:  // rows duplicated, shuffled, blank lines, CRLF
      for (int k = 0, n = 1 + static_cast<int>(pick(8)); k < n; ++k) {
        const size_t r = 1 + pick(lines.size() > 1 ? lines.size() - 1 : 1);
        if (r < lines.size()) lines.insert(lines.begin() + r, pick(3) ? lines[r] : std::string());
      }
      if (lines.size() > 2) std::shuffle(lines.begin() + 1, lines.end(), rng);
      if (pick(2)) {
        for (auto& l : lines) l += "\r";
      }
      break;
    case 10:  // empty, header only, or a header of many columns
      switch (pick(3)) {
        case 0: return "";
        case 1: return lines[0] + "\n";
        default: {
          std::string h = lines[0];
          for (int k = 0; k < 20000; ++k) h += ",c" + std::to_string(k);
          return h + "\n" + (lines.size() > 1 ? lines[1] : "") + "\n";
        }
      }
    case 11: {  // machine columns varied between rows, the study column changed
      static const char* words[] = {"transfer", "sync", "gemm", "fused", "collectives", "NVIDIA B200", "2", "0", "-3"};
      for (int k = 0; k < 3; ++k) cell_edit(words[pick(std::size(words))]);
      break;
    }
  }
  std::string out = join(lines, '\n');
  if (pick(4)) out += "\n";
  return out;
}

// What was running, for the crash message (a signal handler may only write() it). The
// crashing file is kept beside the binary as fuzz_crash.csv to reproduce it.
char g_current[512] = "nothing";
std::string g_file, g_keep;

extern "C" void on_crash(int sig) {
  const char head[] = "pkbench_fuzz_sweeps: crashed in ";
  ssize_t rc = ::write(2, head, sizeof head - 1);
  rc = ::write(2, g_current, strnlen(g_current, sizeof g_current));
  rc = ::write(2, "\n", 1);
  (void)rc;
  if (!g_keep.empty()) ::rename(g_file.c_str(), g_keep.c_str());
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

struct Tally {
  long files = 0, read_ok = 0, refused = 0, failures = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pkbench_fuzz_sweeps FIXTURE_DIR [FILES] [SEED]\n");
    return 2;
  }
  const std::string fixtures = argv[1];
  const long n_files = argc > 2 ? std::atol(argv[2]) : 3000;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  const std::vector<std::string> names = {"transfer_fixture.csv", "sync_fixture.csv", "collectives_fixture.csv",
                                          "fused_fixture.csv", "primitives_fixture.csv", "fused_gemm.csv"};
  std::vector<std::string> bases;
  for (const auto& n : names) bases.push_back(slurp(fixtures + "/" + n));
  const fs::path work = fs::temp_directory_path() / ("pkbench_fuzz_" + std::to_string(::getpid()));
  fs::remove_all(work);
  fs::create_directories(work / "results");
  const std::string file = (work / "f.csv").string();
  g_file = file;
  g_keep = (fs::current_path() / "fuzz_crash.csv").string();
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL}) ::signal(sig, on_crash);

  // Every entry point a tool runs on a CSV, each on its own (one refusing must not hide another).
  const std::vector<std::pair<const char*, std::function<void()>>> entries = {
      {"CsvTable::read", [&] { CsvTable::read(file, std::vector<Field>{{"study"}}, checked_as("")); }},
      {"transfer", [&] {
         const TransferData d = read_transfer(file, &registered_studies());
         summary_markdown(d, summarize_mechanisms(d.rows), 1.0);
         table_csv(transfer_tuning(d));
       }},
      {"sync", [&] { pk::sync::sync_summary_markdown(pk::sync::read_sync_csv(file, &registered_studies())); }},
      {"collectives", [&] {
         pk::coll::read_collectives_info(file);
         pk::coll::collectives_summary_markdown({file});
         table_csv(pk::coll::collectives_tuning(file));
       }},
      {"fused", [&] {
         pk::fused::fused_summary(file);
         table_csv(pk::fused::fused_tuning(file));
       }},
      {"gemm", [&] { read_gemm(file); }},
  };
  const char* study_files[] = {"transfer.csv", "sync.csv", "collectives.csv", "fused.csv", "primitives.csv", "gemm.csv"};

  Tally t;
  std::mt19937_64 rng(seed);
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < n_files; ++i) {
    const size_t b = static_cast<size_t>(rng() % bases.size());
    const int kind = static_cast<int>(rng() % 12);
    const std::string text = mutate(bases[b], bases[(b + 1 + rng() % (bases.size() - 1)) % bases.size()], kind, rng);
    {
      std::ofstream f(file, std::ios::binary | std::ios::trunc);
      f << text;
    }
    ++t.files;
    auto run = [&](const char* what, const std::function<void()>& fn) {
      std::snprintf(g_current, sizeof g_current, "%s on file %ld (fixture %s, mutation %d, seed %llu)", what, i,
                    names[b].c_str(), kind, static_cast<unsigned long long>(seed));
      try {
        fn();
        ++t.read_ok;
      } catch (const std::runtime_error& e) {
        ++t.refused;
        const size_t len = std::string(e.what()).size();
        if (len > 4000) {
          ++t.failures;
          std::fprintf(stderr, "file %ld (fixture %s, mutation %d) %s: a %zu-character message\n", i,
                       names[b].c_str(), kind, what, len);
        }
      } catch (const std::exception& e) {
        ++t.failures;
        std::fprintf(stderr, "file %ld (fixture %s, mutation %d) %s: not a clean error: %s\n", i, names[b].c_str(),
                     kind, what, std::string(e.what()).substr(0, 300).c_str());
      }
    };
    for (const auto& [what, fn] : entries) run(what, fn);
    // The report reads a whole results folder: every 8th file, placed as its study's CSV.
    if (i % 8 == 0) {
      const fs::path dir = work / "results";
      for (const auto& e : fs::directory_iterator(dir)) fs::remove_all(e.path());
      // Where scripts/run.sh writes it: <study>/<study>.csv.
      const fs::path study_dir = dir / fs::path(study_files[b]).stem();
      fs::create_directories(study_dir);
      fs::copy_file(file, study_dir / study_files[b]);
      run("report", [&] {
        const ResultsFolder f = load_results(dir.string());
        report_markdown(f, nullptr, "fuzz");
        all_targets(f);
      });
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fs::remove_all(work);
  std::printf("%ld files, %ld reads, %ld clean refusals, %ld failures, %.1f s\n", t.files, t.read_ok, t.refused,
              t.failures, s);
  // A run that refused everything would test nothing: some files must get through.
  if (t.read_ok == 0) {
    std::fprintf(stderr, "no file was read: the generator is broken\n");
    return 1;
  }
  return t.failures ? 1 : 0;
}
