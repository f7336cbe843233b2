// Fuzz test of the tuning-table reader (pkbench/tuning.h: Tuner::read_json, load_json and the
// lookups after it), the sweeps fuzzer's way: generated JSON documents derived from three
// small valid tables (transfer, collectives, fused, as pkbench_tune writes them) are each
// loaded and, where they load, queried. Passes when every document is read or refused with
// a pkbench::tuning::Error of sane length; a crash fails the test by itself (the case is
// named first, and kept in fuzz_tuning_crash.json), a hang hits CTest's timeout.
// Built with bounds-checked containers (-D_GLIBCXX_ASSERTIONS) and, where the compiler has
// them, AddressSanitizer and UBSan.
//   pkbench_fuzz_tuning [RANDOM_CASES] [SEED]
// The cases: nesting (brackets and objects, 1 to 100 000 deep, closed and unclosed; deep
// inside a row's cell), truncation at every byte of each table, every field (top level and
// each row's cells) given every JSON type and extreme numbers, and RANDOM_CASES random byte
// edits (default 400).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <pkbench/tuning.h>

namespace {

using pkbench::tuning::Error;
using pkbench::tuning::Options;
using pkbench::tuning::Tuner;

const char* const kTransfer = R"({"schema": "pkbench-tuning", "schema_version": 1, "table": "transfer", "peer_modes": ["single"],
 "rows": [
  {"machine": "h200x2", "gpu_name": "NVIDIA H200", "gpu_count": 2, "direction": "push", "pattern": "one_way", "choice": "any",
   "from_bytes": 2048, "to_bytes": 4095, "sizes_measured": "2048", "candidates": 3, "tied": 1, "mechanism": "tma_bulk",
   "sms": 132, "blocks_per_sm": 1, "threads": 128, "pipeline_depth": 16, "vec_bytes": null, "unroll": null,
   "message_bytes": 2048, "gbps": 344.404, "min_sms_90": 8, "min_sms_90_gbps": 310.5,
   "min_sms_90_config": "sms=8 blocks_per_sm=1 threads=128 pipeline_depth=4", "sms_swept": false, "source": "t.csv:2"},
  {"machine": "h200x2", "gpu_name": "NVIDIA H200", "gpu_count": 2, "direction": "push", "pattern": "one_way", "choice": "any",
   "from_bytes": 4096, "to_bytes": 1048575, "sizes_measured": "4096;65536", "candidates": 5, "tied": 2, "mechanism": "ld_st",
   "sms": 16, "blocks_per_sm": 2, "threads": 512, "pipeline_depth": null, "vec_bytes": 16, "unroll": 4,
   "message_bytes": 65536, "gbps": 120.5, "min_sms_90": 4, "min_sms_90_gbps": 110.0,
   "min_sms_90_config": "sms=4 threads=512 vec_bytes=16 unroll=4", "sms_swept": true, "source": "t.csv:3"}]})";

const char* const kCollectives = R"({"schema": "pkbench-tuning", "schema_version": 1, "table": "collectives", "peer_modes": ["ipc"],
 "rows": [
  {"machine": "h200x2", "collective": "all_reduce", "dtype": "bf16", "gpus": 2, "launch_mode": "eager", "from_bytes": 4096,
   "to_bytes": 8191, "candidates": 5, "tied": 1, "impl": "ll", "family": "pk", "config": "1 blocks x 512 threads 8B",
   "sms": 1, "threads": 512, "knobs": null, "bytes": 4096, "time_us": 3.8, "speedup_vs_nccl": 2.5, "source": "c.csv:2"},
  {"machine": "h200x2", "collective": "all_reduce", "dtype": "bf16", "gpus": 2, "launch_mode": "graph", "from_bytes": 8192,
   "to_bytes": 1048575, "candidates": 6, "tied": 1, "impl": "one_shot", "family": "pk", "config": "132 blocks x 512 threads 16B",
   "knobs": null, "bytes": 1048576, "time_us": 12.5, "speedup_vs_nccl": 1.2, "source": "c.csv:3"},
  {"machine": "h200x2", "collective": "all_reduce", "dtype": "bf16", "gpus": 2, "launch_mode": "eager", "from_bytes": 1048576,
   "to_bytes": 67108863, "candidates": 4, "tied": 1, "impl": "nccl", "family": "nccl", "config": "nccl",
   "sms": null, "threads": null, "bytes": 16777216, "time_us": 90.0, "speedup_vs_nccl": 1.0, "source": "c.csv:4"}]})";

const char* const kFused = R"({"schema": "pkbench-tuning", "schema_version": 1, "table": "fused", "peer_modes": ["ipc"],
 "rows": [
  {"machine": "h200x2", "op": "gemm_rs", "gpus": 2, "m": 4096, "n": 2048, "k": 4096, "candidates": 6, "tied": 1,
   "overlap": "inter_sm", "impl": "inter_sm", "comm_sms": 8, "time_us": 135.262, "tflops": 508.0, "source": "f.csv:2"},
  {"machine": "h200x2", "op": "gemm_rs", "gpus": 2, "m": 8192, "n": 8192, "k": 8192, "candidates": 6, "tied": 1,
   "overlap": "intra_sm", "impl": "intra_sm", "comm_sms": 0, "time_us": 2000.5, "tflops": 600.0, "source": "f.csv:3"}]})";

// The case being run, for the crash handler (async-signal-safe: write only).
char g_current[512];
std::string g_doc;
void on_crash(int sig) {
  const char msg[] = "pkbench_fuzz_tuning: CRASH (signal) on case: ";
  (void)!::write(2, msg, sizeof msg - 1);
  (void)!::write(2, g_current, std::strlen(g_current));
  (void)!::write(2, "\n", 1);
  std::ofstream("fuzz_tuning_crash.json", std::ios::binary) << g_doc;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

struct Tally {
  long cases = 0, loaded = 0, refused = 0, failures = 0;
};

// Loads `doc` and asks every lookup (inside, between, outside and at the edges of the
// measured points, with and without extrapolation); any exception but a short Error fails.
void run_case(Tally& t, const std::string& what, const std::string& doc) {
  std::snprintf(g_current, sizeof g_current, "%s (%zu bytes)", what.c_str(), doc.size());
  g_doc = doc;
  ++t.cases;
  for (bool extrapolate : {false, true}) {
    try {
      Options o;
      o.extrapolate = extrapolate;
      Tuner tuner("h200x2", o);
      tuner.load_json(doc, "fuzz");
      if (!extrapolate) ++t.loaded;
      for (unsigned long long b : {0ULL, 2048ULL, 3000ULL, 65536ULL, 1ULL << 40, ~0ULL}) {
        for (int budget : {-1, 4}) tuner.choose_transfer(b, "push", 1, budget);
        tuner.choose_collective("all_reduce", b, "bf16", 2);
      }
      tuner.choose_transfer(30000, "pull", 3, -1, true);
      tuner.choose_collective("all_reduce", 30000, "bf16", 2, "graph");
      for (long long m : {0LL, 6000LL, 1LL << 40, -5LL}) tuner.choose_split("gemm_rs", m, 2048, m, 2);
    } catch (const Error& e) {
      if (!extrapolate) ++t.refused;
      const size_t len = std::strlen(e.what());
      if (len > 4000) {
        ++t.failures;
        std::fprintf(stderr, "%s: a %zu-character message\n", what.c_str(), len);
      }
    } catch (const std::exception& e) {
      ++t.failures;
      std::fprintf(stderr, "%s: not a clean error: %.300s\n", what.c_str(), e.what());
    }
  }
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The spans of every value in `doc` that follows a key ("key": VALUE): [start, end) and the
// key, found by a small scan (the base tables are well-formed and written here).
struct Field {
  std::string key;
  size_t start, end;
};
std::vector<Field> fields_of(const std::string& doc) {
  std::vector<Field> out;
  for (size_t i = 0; i < doc.size(); ++i) {
    if (doc[i] != '"') continue;
    const size_t close = doc.find('"', i + 1);
    if (close == std::string::npos) break;
    size_t j = close + 1;
    while (j < doc.size() && doc[j] == ' ') ++j;
    if (j >= doc.size() || doc[j] != ':') {
      i = close;
      continue;
    }
    ++j;
    while (j < doc.size() && doc[j] == ' ') ++j;
    // The value's end: a matching bracket, a string's close, else the next , } or ].
    size_t k = j;
    if (doc[j] == '"') {
      k = doc.find('"', j + 1) + 1;
    } else if (doc[j] == '[' || doc[j] == '{') {
      int depth = 0;
      for (; k < doc.size(); ++k) {
        if (doc[k] == '[' || doc[k] == '{') ++depth;
        if (doc[k] == ']' || doc[k] == '}') {
          if (--depth == 0) {
            ++k;
            break;
          }
        }
      }
    } else {
      while (k < doc.size() && doc[k] != ',' && doc[k] != '}' && doc[k] != ']') ++k;
    }
    out.push_back({doc.substr(i + 1, close - i - 1), j, k});
    i = close;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const long n_random = argc > 1 ? std::atol(argv[1]) : 400;
  const unsigned long long seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGILL}) ::signal(sig, on_crash);
  const std::vector<std::pair<const char*, std::string>> bases = {
      {"transfer", kTransfer}, {"collectives", kCollectives}, {"fused", kFused}};
  Tally t;

  // The bases themselves load and answer (a fuzzer whose seeds are refused tests nothing).
  for (const auto& [name, doc] : bases) {
    try {
      Tuner tuner("h200x2");
      tuner.load_json(doc, name);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "the %s base table is refused: %s\n", name, e.what());
      return 1;
    }
  }
  {
    Tuner tuner("h200x2");
    for (const auto& [name, doc] : bases) tuner.load_json(doc, name);
    if (!tuner.choose_transfer(2048, "push", 1).ok() || !tuner.choose_collective("all_reduce", 4096, "bf16", 2).ok() ||
        !tuner.choose_split("gemm_rs", 4096, 2048, 4096, 2).ok()) {
      std::fprintf(stderr, "the base tables do not answer their measured points\n");
      return 1;
    }
  }

  // Nesting: brackets, objects and mixed, closed and unclosed, at the top and inside a cell.
  for (size_t depth : {1, 2, 3, 63, 64, 65, 100, 1000, 100000}) {
    const std::string d = std::to_string(depth);
    run_case(t, "nested [ x" + d, repeat("[", depth));
    run_case(t, "nested [] x" + d, repeat("[", depth) + repeat("]", depth));
    run_case(t, "nested {\"a\": x" + d, repeat("{\"a\":", depth));
    run_case(t, "nested {\"a\":} x" + d, repeat("{\"a\":", depth) + "1" + repeat("}", depth));
    run_case(t, "nested [{ x" + d, repeat("[{\"rows\":", depth));
    std::string cell = kTransfer;
    cell.replace(cell.find("\"2048\""), 6, repeat("[", depth) + repeat("]", depth));
    run_case(t, "a cell nested x" + d, cell);
    std::string rows = kFused;
    rows.replace(rows.find("\"rows\": ["), 9, "\"rows\": " + repeat("[", depth));
    run_case(t, "rows nested x" + d, rows);
  }
  // Short and degenerate documents.
  for (const char* doc : {"", "{", "}", "[", "\"", "\"\\", "\"\\u12", "-", "1e", "0.", "1e999", "-1e999", "nul", "{\"", "{\"a\"",
                          "{\"a\":", "{\"a\":1,", "{\"a\":1,}", "[1,]", "\x00", "\xff", "{\"schema_version\":1}",
                          "{\"schema_version\":1,\"rows\":[]}", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\""})
    run_case(t, std::string("short document '") + doc + "'", doc);

  // Truncation at every byte of each base table.
  for (const auto& [name, doc] : bases)
    for (size_t n = 0; n < doc.size(); ++n) run_case(t, std::string(name) + " cut at byte " + std::to_string(n), doc.substr(0, n));

  // Every field of each table given every type and extreme numbers.
  const std::vector<std::string> values = {"null", "true", "false", "0", "-1", "1", "2", "1.5", "-0.0", "1e308", "-1e308",
                                           "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                                           "18446744073709551616", "1e-320", "\"\"", "\"x\"", "\"sms=99999999999999999999 threads=-1\"",
                                           "\"1e400;-5;nan;4096\"", "[]", "[1]", "[\"virtual\"]", "{}", "{\"a\":[]}",
                                           "\"\\u0000\"", "\"\\ud83d\\ude00\""};
  for (const auto& [name, doc] : bases) {
    const std::vector<Field> fields = fields_of(doc);
    if (fields.size() < 20) {
      std::fprintf(stderr, "the %s base table has %zu fields: the field scan is broken\n", name, fields.size());
      return 1;
    }
    for (const Field& f : fields)
      for (const std::string& v : values) {
        std::string m = doc;
        m.replace(f.start, f.end - f.start, v);
        run_case(t, std::string(name) + " field '" + f.key + "' at " + std::to_string(f.start) + " = " + v, m);
      }
  }

  // Random byte edits: replace, insert, delete, duplicate a span.
  std::mt19937_64 rng(seed);
  const char alphabet[] = "{}[]\",:\\0123456789.eE+-tfnul \n\x01\xff";
  for (long i = 0; i < n_random; ++i) {
    const auto& [name, base] = bases[rng() % bases.size()];
    std::string doc = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !doc.empty(); ++e) {
      const size_t at = rng() % doc.size();
      const char c = alphabet[rng() % (sizeof alphabet - 1)];
      switch (rng() % 4) {
        case 0: doc[at] = c; break;
        case 1: doc.insert(doc.begin() + static_cast<long>(at), c); break;
        case 2: doc.erase(at, 1 + rng() % 8); break;
        default: {
          const size_t len = std::min<size_t>(1 + rng() % 64, doc.size() - at);
          doc.insert(at, doc.substr(at, len));
        }
      }
    }
    run_case(t, std::string(name) + " random edit " + std::to_string(i) + " (seed " + std::to_string(seed) + ")", doc);
  }

  std::printf("%ld documents, %ld loaded, %ld refused cleanly, %ld failures\n", t.cases, t.loaded, t.refused, t.failures);
  if (t.loaded == 0 || t.refused == 0) {
    std::fprintf(stderr, "every document was %s: the generator is broken\n", t.loaded == 0 ? "refused" : "loaded");
    return 1;
  }
  return t.failures ? 1 : 0;
}
