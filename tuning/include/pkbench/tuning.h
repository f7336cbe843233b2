#pragma once
// C++17 or later: under an older standard, one error saying so (not hundreds from the body).
#if !defined(__cplusplus) || (__cplusplus < 201703L && (!defined(_MSVC_LANG) || _MSVC_LANG < 201703L))
#error "pkbench/tuning.h needs C++17 or later (compile with -std=c++17 or newer; CMake: target_compile_features(... cxx_std_17), which pkbench::tuning sets)"
#else
// pkbench::tuning: the measured tuning tables as answers for a program's own shapes.
// Header-only C++17, no dependencies. Installed by `cmake --install` (find_package(pkbench
// CONFIG), target pkbench::tuning).
//
//   pkbench::tuning::Tuner t("h200x2");                  // the machine this program runs on
//   t.load_json_file("transfer_tuning.json");            // tables written by pkbench_tune
//   // or, with the generated header included: t.load_compiled();
//   auto tr = t.choose_transfer(3 << 20, "push", 1, 32); // bytes, direction, peers, SM budget
//   auto co = t.choose_collective("all_reduce", 3 << 20, "bf16", 2);
//   auto sp = t.choose_split("gemm_rs", 6144, 3072, 6144, 2);  // op, m, n, k, ranks
//   if (tr.ok()) use(tr.mechanism, tr.sms, tr.threads, ...);  // tr.basis, tr.from say why
//
// Refusals (a pkbench::tuning::Error at load time): a table whose schema_version is not
// kSchemaVersion; a table with no rows for the machine the rows are taken from (the Tuner's
// machine, or Options::accept_machine when the caller explicitly accepts another machine's
// measurements); a table made from virtual-rank rows (peer_mode "virtual": those measure HBM,
// not NVLink, and are never tuning input for a real machine). Virtual rows carry a machine key
// of their own, virtual_machine_key("h100x1", 4) = "h100x1-virtual4" (pkbench_tune
// --allow-virtual writes them so): only a Tuner whose machine is that same key, i.e. a run on
// the same GPU model and count with the same number of virtual ranks (pkbench's own `tuned`
// rows), reads them.
//
// The rule for a point that was not measured (every lookup, stated once here):
//   - Points: the measured sizes of the keys' rows (transfer: each bucket's sizes_measured;
//     collectives: each bucket's chosen `bytes`; fused: each row's m, n, k). A bucket's row
//     answers for every size measured in it.
//   - measured: the request is a measured point; the answer is its row.
//   - interpolated: the request lies between measured points (sizes: strictly between the
//     smallest and the largest; shapes: every dimension within the measured range). Sizes:
//     the neighbours are the nearest measured size below and above; when their rows choose
//     the same configuration that is the answer; otherwise the neighbour nearer on a log2
//     scale, at equal distance the one with fewer SMs (the tables' own tiebreak). Shapes: the
//     measured shape nearest in (log2 m, log2 n, log2 k), Euclidean; equal distance: fewer
//     communication SMs. `from` names the rows used.
//   - outside the measured range: refused, unless Options::extrapolate, which answers the
//     nearest edge's row with basis `predicted` (flagged in `why`).
//   - Estimates (estimate_us) are log-linear between the neighbours' measured times (sizes)
//     or the nearest shape's time scaled by m*n*k (shapes); they are not measurements.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pkbench::tuning {

// The tables' schema version this API reads: pkbench_tune writes it into every JSON table
// ("schema_version") and generated header (kGeneratedSchemaVersion). Bumped when a column a
// lookup reads changes meaning or name.
inline constexpr int kSchemaVersion = 1;

// The machine key of N virtual ranks on `machine` (see the refusals above).
inline std::string virtual_machine_key(const std::string& machine, int ranks) {
  return machine + "-virtual" + std::to_string(ranks);
}
inline bool is_virtual_machine_key(std::string_view machine) { return machine.find("-virtual") != std::string_view::npos; }

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The machine key pkbench uses for results/<machine>: GPU model x GPU count, "h200x2".
inline std::string machine_key(std::string gpu_name, int gpu_count) {
  if (gpu_name.rfind("NVIDIA ", 0) == 0) gpu_name = gpu_name.substr(7);
  gpu_name = gpu_name.substr(0, gpu_name.find(' '));
  std::string k;
  for (char c : gpu_name)
    if (std::isalnum(static_cast<unsigned char>(c))) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return (k.empty() ? std::string("unknown") : k) + "x" + std::to_string(gpu_count);
}

// One cell of a table row.
struct Value {
  enum Kind { null, text, integer, number, boolean } kind = null;
  std::string s;
  long long i = 0;
  double d = 0;
  bool b = false;
  double num() const { return kind == integer ? static_cast<double>(i) : kind == number ? d : kind == boolean ? b : 0; }
  // A number beyond long long saturates (never undefined behaviour on a table's 1e300).
  long long integ() const {
    if (kind == integer) return i;
    if (kind != number || !(d == d)) return 0;
    return d >= 9.2e18 ? LLONG_MAX : d <= -9.2e18 ? LLONG_MIN : static_cast<long long>(d);
  }
  std::string str() const { return kind == text ? s : kind == integer ? std::to_string(i) : kind == number ? std::to_string(d) : ""; }
};

struct Row {
  std::map<std::string, Value, std::less<>> cells;
  const Value& at(std::string_view c) const {
    static const Value none;
    auto it = cells.find(c);
    return it == cells.end() ? none : it->second;
  }
  std::string text(std::string_view c) const { return at(c).str(); }
  long long integer(std::string_view c) const { return at(c).integ(); }
  double number(std::string_view c) const { return at(c).num(); }
};

struct Table {
  std::string name, origin;  // "transfer" | "collectives" | "fused"; the file or "compiled"
  int schema_version = 0;
  std::vector<std::string> peer_modes;  // of the rows it was made from ("virtual": virtual ranks)
  std::vector<Row> rows;
};

enum class Basis { measured, interpolated, predicted, refused };
inline const char* to_string(Basis b) {
  switch (b) {
    case Basis::measured: return "measured";
    case Basis::interpolated: return "interpolated";
    case Basis::predicted: return "predicted";
    case Basis::refused: return "refused";
  }
  return "";
}

// What every answer says: how it was obtained, why, and from which rows (their `source`
// cells: the study CSV's file and line).
struct Answer {
  Basis basis = Basis::refused;
  std::string why;
  std::vector<std::string> from;
  double estimate_us = 0;  // measured: the row's time; otherwise the estimate (0: none)
  bool ok() const { return basis != Basis::refused; }
};

struct TransferChoice : Answer {
  std::string mechanism, pattern, choice;  // choice: "any" (copy engine allowed) or "device"
  int sms = 0, threads = 0, blocks_per_sm = 0, pipeline_depth = 0, vec_bytes = 0, unroll = 0;  // 0: no such knob
  double gbps = 0;  // the chosen row's measured median
};

struct CollectiveChoice : Answer {
  std::string impl, family, config, launch_mode;
  // From `sms` / `threads` columns when the table has them; else parsed from the free-text
  // `config` ("132 blocks x 512 threads 16B": one block per SM); 0 for NCCL and NVSHMEM rows
  // (the library picks its own grid).
  int sms = 0, threads = 0;
  double time_us = 0, speedup_vs_nccl = 0;  // the chosen row's measured median and speedup
};

struct SplitChoice : Answer {
  std::string overlap, impl;  // intra_sm | inter_sm
  int comm_sms = 0;
  double time_us = 0;  // the chosen row's measured median
};

struct Options {
  // Use the rows of this machine instead of the Tuner's own ("" = refuse other machines).
  std::string accept_machine;
  // Answer outside the measured range from the nearest edge (basis predicted).
  bool extrapolate = false;
};

namespace detail {

// Saturating conversions: a table's numbers are read as written, and a cell of 1e300 where a
// size or an SM count belongs must give a refusal or a useless answer, never undefined
// behaviour.
inline long long to_ll(double d) {
  if (!(d == d)) return 0;  // NaN
  if (d >= 9.2e18) return LLONG_MAX;
  if (d <= -9.2e18) return LLONG_MIN;
  return static_cast<long long>(d);
}
inline unsigned long long to_ull(double d) {
  if (!(d > 0)) return 0;
  if (d >= 1.8e19) return ULLONG_MAX;
  return static_cast<unsigned long long>(d);
}
inline int to_int(long long v) {
  return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : static_cast<int>(v);
}

// Just enough JSON for the tables pkbench_tune writes (objects, arrays, strings, numbers,
// true/false/null), strict about what it takes: every read is bounds-checked, nesting deeper
// than kMaxDepth is refused (the tables nest 3 deep; a file of brackets must not overflow the
// stack), numbers follow JSON's grammar and must be finite. Anything else: an Error naming
// the file and the offset.
struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double d = 0;
  bool integral = false;  // written without fraction or exponent and within long long
  long long i = 0;
  std::string s;
  std::vector<Json> a;
  std::vector<std::pair<std::string, Json>> o;
  const Json* get(std::string_view k) const {
    for (const auto& [key, v] : o)
      if (key == k) return &v;
    return nullptr;
  }
};

inline const char* kind_name(Json::Kind k) {
  switch (k) {
    case Json::null: return "null";
    case Json::boolean: return "a boolean";
    case Json::number: return "a number";
    case Json::string: return "a string";
    case Json::array: return "an array";
    case Json::object: return "an object";
  }
  return "";
}

class JsonParser {
 public:
  static constexpr int kMaxDepth = 64;
  JsonParser(std::string_view text, std::string where) : t_(text), where_(std::move(where)) {}
  Json parse() {
    Json v = value(0);
    ws();
    if (p_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  std::string_view t_;
  std::string where_;
  size_t p_ = 0;
  [[noreturn]] void fail(const std::string& m) const {
    throw Error(where_ + ": JSON at offset " + std::to_string(p_) + ": " + m);
  }
  bool at_end() const { return p_ >= t_.size(); }
  char peek() const { return at_end() ? '\0' : t_[p_]; }
  void ws() {
    while (!at_end() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r')) ++p_;
  }
  bool lit(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  unsigned hex4() {
    if (t_.size() - p_ < 4) fail("bad \\u escape: fewer than 4 hex digits");
    unsigned cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = t_[p_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') cp |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') cp |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad \\u escape: not a hex digit");
    }
    return cp;
  }
  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string str() {
    if (peek() != '"') fail(at_end() ? "unexpected end: expected a string" : "expected a string");
    ++p_;
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const char c = t_[p_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_end()) fail("unterminated escape");
      switch (const char e = t_[p_++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair
            if (!lit("\\u")) fail("bad \\u escape: a high surrogate without its low half");
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad \\u escape: a high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            fail("bad \\u escape: a lone low surrogate");
          }
          utf8(out, cp);
          break;
        }
        default: fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }
  bool digit() const { return !at_end() && t_[p_] >= '0' && t_[p_] <= '9'; }
  // JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  Json number() {
    const size_t start = p_;
    Json v;
    v.kind = Json::number;
    if (peek() == '-') ++p_;
    if (!digit()) fail("unexpected character");
    if (t_[p_] == '0') ++p_;
    else
      while (digit()) ++p_;
    bool integral = true;
    if (peek() == '.') {
      ++p_, integral = false;
      if (!digit()) fail("bad number: no digit after '.'");
      while (digit()) ++p_;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_, integral = false;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digit()) fail("bad number: no digit in the exponent");
      while (digit()) ++p_;
    }
    const std::string num(t_.substr(start, p_ - start));
    v.d = std::strtod(num.c_str(), nullptr);
    if (!std::isfinite(v.d)) fail("number out of range: " + num.substr(0, 40));
    if (integral) {
      errno = 0;
      const long long i = std::strtoll(num.c_str(), nullptr, 10);
      if (errno != ERANGE) v.integral = true, v.i = i;
    }
    return v;
  }
  // The comma-separated elements of an object or array, from its opening bracket through
  // `close`: `element` reads one.
  template <class F>
  void elements(char close, F&& element) {
    ++p_;
    ws();
    if (peek() == close) {
      ++p_;
      return;
    }
    for (;;) {
      element();
      ws();
      if (at_end()) fail(std::string("unexpected end: expected ',' or '") + close + "'");
      if (t_[p_] == ',') {
        ++p_;
        continue;
      }
      if (t_[p_] == close) {
        ++p_;
        return;
      }
      fail(std::string("expected ',' or '") + close + "'");
    }
  }
  Json value(int depth) {
    ws();
    if (at_end()) fail("unexpected end");
    Json v;
    const char c = t_[p_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxDepth) fail("nested deeper than " + std::to_string(kMaxDepth) + " levels (a tuning table nests 3)");
      if (c == '{') {
        v.kind = Json::object;
        elements('}', [&] {
          ws();
          std::string k = str();
          ws();
          if (peek() != ':') fail(at_end() ? "unexpected end: expected ':'" : "expected ':'");
          ++p_;
          v.o.emplace_back(std::move(k), value(depth + 1));
        });
      } else {
        v.kind = Json::array;
        elements(']', [&] { v.a.push_back(value(depth + 1)); });
      }
      return v;
    }
    if (c == '"') {
      v.kind = Json::string;
      v.s = str();
      return v;
    }
    if (lit("true")) return v.kind = Json::boolean, v.b = true, v;
    if (lit("false")) return v.kind = Json::boolean, v;
    if (lit("null")) return v;
    return number();
  }
};

inline double log2d(double x) { return std::log2(x > 0 ? x : 1); }

// "132 blocks x 512 threads 16B" -> 132, 512. Anything else (NCCL, NVSHMEM): 0, 0.
inline void parse_grid(const std::string& config, int* sms, int* threads) {
  *sms = *threads = 0;
  std::istringstream is(config);
  long long a = 0, b = 0;
  std::string w1, x, w2;
  if (is >> a >> w1 >> x >> b >> w2 && w1 == "blocks" && x == "x" && w2 == "threads") {
    *sms = to_int(a);
    *threads = to_int(b);
  }
}

// Measured points along one axis (a size): point -> row.
struct Point {
  double at = 0;
  const Row* row = nullptr;
};

}  // namespace detail

struct CompiledSink;

class Tuner {
 public:
  explicit Tuner(std::string machine, Options o = {}) : machine_(std::move(machine)), opt_(std::move(o)) {}

  const std::string& machine() const { return machine_; }
  // The machine whose measurements answer.
  const std::string& rows_machine() const { return opt_.accept_machine.empty() ? machine_ : opt_.accept_machine; }
  const std::vector<Table>& tables() const { return tables_; }

  void load_json_file(const std::string& path) { add(read_json_file(path)); }

  void load_json(std::string_view text, const std::string& origin = "json") { add(read_json(text, origin)); }

  // A JSON table as written, unchecked but for its form (no machine, schema or row checks:
  // add() makes those).
  static Table read_json_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw Error(path + ": cannot read");
    std::stringstream ss;
    ss << f.rdbuf();
    return read_json(ss.str(), path);
  }
  static Table read_json(std::string_view text, const std::string& origin = "json") {
    const detail::Json j = detail::JsonParser(text, origin).parse();
    if (j.kind != detail::Json::object) throw Error(origin + ": not a pkbench tuning table (not a JSON object)");
    const detail::Json* v = j.get("schema_version");
    if (!v)
      throw Error(origin + ": no schema_version (written before schema 1, or not a pkbench tuning table): regenerate it with pkbench_tune");
    if (v->kind != detail::Json::number || !v->integral)
      throw Error(origin + ": schema_version is " + (v->kind == detail::Json::number ? std::string("not an integer") : detail::kind_name(v->kind)) +
                  ", not an integer: not a pkbench tuning table");
    Table t;
    t.origin = origin;
    // Out of int's range: a version no reader has (check_schema refuses it).
    t.schema_version = v->i < INT_MIN || v->i > INT_MAX ? -1 : static_cast<int>(v->i);
    if (const detail::Json* name = j.get("table")) {
      if (name->kind != detail::Json::string)
        throw Error(origin + ": \"table\" is " + detail::kind_name(name->kind) + ", not a string");
      t.name = name->s;
    }
    if (const detail::Json* pm = j.get("peer_modes")) {
      if (pm->kind != detail::Json::array)
        throw Error(origin + ": \"peer_modes\" is " + detail::kind_name(pm->kind) + ", not an array of strings");
      for (const auto& m : pm->a) {
        if (m.kind != detail::Json::string)
          throw Error(origin + ": \"peer_modes\" holds " + detail::kind_name(m.kind) + ", not a string");
        t.peer_modes.push_back(m.s);
      }
    }
    const detail::Json* rows = j.get("rows");
    if (!rows) throw Error(origin + ": no \"rows\" array");
    if (rows->kind != detail::Json::array)
      throw Error(origin + ": \"rows\" is " + detail::kind_name(rows->kind) + ", not an array");
    for (size_t n = 0; n < rows->a.size(); ++n) {
      const detail::Json& r = rows->a[n];
      if (r.kind != detail::Json::object)
        throw Error(origin + ": row " + std::to_string(n) + " is " + detail::kind_name(r.kind) + ", not an object");
      Row row;
      for (const auto& [k, c] : r.o) {
        Value x;
        switch (c.kind) {
          case detail::Json::null: break;
          case detail::Json::boolean: x.kind = Value::boolean, x.b = c.b; break;
          case detail::Json::number:
            if (c.integral) x.kind = Value::integer, x.i = c.i;
            else x.kind = Value::number, x.d = c.d;
            break;
          case detail::Json::string: x.kind = Value::text, x.s = c.s; break;
          default:
            throw Error(origin + ": row " + std::to_string(n) + ": column '" + k.substr(0, 80) + "' holds " +
                        detail::kind_name(c.kind));
        }
        row.cells.emplace(k, std::move(x));
      }
      t.rows.push_back(std::move(row));
    }
    return t;
  }

  // The tables of the generated header pkbench_tuning.h (include it anywhere in this
  // translation unit): its for_each_table() is found when this is used.
  // A header holds several machines' tables: those without rows for rows_machine() are left
  // out; none with rows at all is refused.
  template <class Sink = CompiledSink>
  void load_compiled() {
    std::vector<Table> got;
    Sink s{&got};
    for_each_table(s);
    bool added = false;
    std::string held;
    for (auto& t : got) {
      bool mine = false;
      for (const auto& r : t.rows) mine |= r.text("machine") == rows_machine();
      if (!t.rows.empty()) held += (held.empty() ? "" : ", ") + t.name + " of " + t.rows[0].text("machine");
      if (!mine) continue;
      add(std::move(t));
      added = true;
    }
    if (!added) {
      throw Error("pkbench_tuning.h: no table measured on " + rows_machine() + " (it holds " +
                  (held.empty() ? std::string("no rows") : held) +
                  "; to use another machine's measurements anyway, set Options::accept_machine)");
    }
  }

  // The schema version and the table's name (any machine).
  static void check_schema(const Table& t) {
    if (t.schema_version != kSchemaVersion)
      throw Error(t.origin + ": table " + t.name + " has schema_version " + std::to_string(t.schema_version) +
                  "; this pkbench::tuning reads " + std::to_string(kSchemaVersion) + ": regenerate it with a matching pkbench_tune");
    if (t.name != "transfer" && t.name != "collectives" && t.name != "fused")
      throw Error(t.origin + ": unknown table '" + t.name + "'");
  }

  // Adds a table after the checks named at the top (schema version, machine, virtual rows).
  void add(Table t) {
    check_schema(t);
    const bool virtual_rows_ok = is_virtual_machine_key(rows_machine());
    const std::string never =
        ": never tuning input for a real machine (only a run on the same virtual ranks reads it, by its machine key, "
        "e.g. " + virtual_machine_key("h100x1", 4) + ")";
    for (const auto& m : t.peer_modes)
      if (m == "virtual" && !virtual_rows_ok)
        throw Error(t.origin + ": made from virtual-rank rows (peer_mode virtual: ranks sharing one GPU measure HBM, not NVLink)" + never);
    std::string seen;
    bool mine = false;
    for (const auto& r : t.rows) {
      const std::string m = r.text("machine");
      if (m == rows_machine()) mine = true;
      else if (seen.find(m) == std::string::npos) seen += (seen.empty() ? "" : ", ") + m;
      if (r.text("peer_mode") == "virtual" && !virtual_rows_ok)
        throw Error(t.origin + ": a row from virtual ranks" + never);
    }
    if (!mine) {
      if (opt_.accept_machine.empty())
        throw Error(t.origin + ": table " + t.name + " was measured on " + (seen.empty() ? "no machine" : seen) +
                    ", not on " + machine_ + " (to use another machine's measurements anyway, set Options::accept_machine)");
      throw Error(t.origin + ": table " + t.name + " has no rows for the accepted machine " + opt_.accept_machine);
    }
    for (auto& old : tables_)
      if (old.name == t.name) {
        old.rows.insert(old.rows.end(), t.rows.begin(), t.rows.end());
        return;
      }
    tables_.push_back(std::move(t));
  }

  // Mechanism and knobs for moving `bytes` per message to `peers` peers (1: one_way;
  // more: one_to_all for push, all_to_one for pull; `pattern` overrides), within `sm_budget`
  // SMs (< 0: any number). The table's choice "any" (the copy engine counts as 0 SMs), or
  // "device" (SM-issued only) when device_only. When the chosen configuration needs more SMs
  // than the budget, the fewest SMs of its mechanism reaching 90 % of the fastest
  // (min_sms_90_config) is answered if it fits (said in why); otherwise refused.
  TransferChoice choose_transfer(unsigned long long bytes, std::string_view direction, int peers, int sm_budget = -1,
                                 bool device_only = false, std::string_view pattern = {}) const {
    TransferChoice c;
    c.pattern = !pattern.empty() ? std::string(pattern) : peers <= 1 ? "one_way" : direction == "pull" ? "all_to_one" : "one_to_all";
    c.choice = device_only ? "device" : "any";
    std::vector<detail::Point> pts;
    for (const Row* r : rows_of("transfer")) {
      if (r->text("direction") != direction || r->text("pattern") != c.pattern || r->text("choice") != c.choice) continue;
      std::string sizes = r->text("sizes_measured");
      for (char& ch : sizes)
        if (ch == ';') ch = ' ';
      std::istringstream is(sizes);
      double s = 0;
      while (is >> s) pts.push_back({s, r});
      if (sizes.empty()) pts.push_back({r->number("message_bytes"), r});
    }
    const Row* row = pick_on_axis(pts, static_cast<double>(bytes), "sms", &c, "transfer " + std::string(direction) + " " + c.pattern + " " + c.choice);
    if (!row) return c;
    c.mechanism = row->text("mechanism");
    c.sms = detail::to_int(row->integer("sms"));
    c.threads = detail::to_int(row->integer("threads"));
    c.blocks_per_sm = detail::to_int(row->integer("blocks_per_sm"));
    c.pipeline_depth = detail::to_int(row->integer("pipeline_depth"));
    c.vec_bytes = detail::to_int(row->integer("vec_bytes"));
    c.unroll = detail::to_int(row->integer("unroll"));
    c.gbps = row->number("gbps");
    if (sm_budget >= 0 && c.sms > sm_budget) {
      const int m90 = detail::to_int(row->integer("min_sms_90"));
      if (m90 > 0 && m90 <= sm_budget) {
        c.sms = m90;
        c.gbps = row->number("min_sms_90_gbps");
        // Its knobs: "sms=8 blocks_per_sm=1 threads=128 pipeline_depth=4".
        std::istringstream knobs(row->text("min_sms_90_config"));
        std::string kv;
        while (knobs >> kv) {
          const size_t eq = kv.find('=');
          if (eq == std::string::npos) continue;
          const std::string k = kv.substr(0, eq);
          const int v = detail::to_int(std::strtoll(kv.c_str() + eq + 1, nullptr, 10));
          if (k == "sms") c.sms = v;
          else if (k == "threads") c.threads = v;
          else if (k == "blocks_per_sm") c.blocks_per_sm = v;
          else if (k == "pipeline_depth") c.pipeline_depth = v;
          else if (k == "vec_bytes") c.vec_bytes = v;
          else if (k == "unroll") c.unroll = v;
        }
        c.why += "; " + std::to_string(sm_budget) + "-SM budget: the fewest SMs of " + c.mechanism +
                 " reaching 90 % of the fastest (" + row->text("min_sms_90_config") + ")";
      } else {
        c.basis = Basis::refused;
        c.why += "; refused: needs " + std::to_string(c.sms) + " SMs and its 90 % point " +
                 (m90 > 0 ? std::to_string(m90) + " SMs" : std::string("is unknown")) + ", budget " + std::to_string(sm_budget);
        return c;
      }
    }
    if (c.gbps > 0 && c.estimate_us == 0) c.estimate_us = static_cast<double>(bytes) / c.gbps / 1e3;
    return c;
  }

  // Implementation, grid and launch mode for one collective of `bytes` (nccl-tests' size
  // convention) of `dtype` over `ranks` GPUs. launch_mode "" answers the faster of the
  // launch modes measured (by the chosen rows' times or estimates).
  CollectiveChoice choose_collective(std::string_view collective, unsigned long long bytes, std::string_view dtype,
                                     int ranks, std::string_view launch_mode = {}) const {
    std::vector<std::string> modes;
    for (const Row* r : rows_of("collectives")) {
      const std::string m = r->text("launch_mode");
      if ((launch_mode.empty() || m == launch_mode) && r->text("collective") == collective && r->text("dtype") == dtype &&
          r->integer("gpus") == ranks && std::find(modes.begin(), modes.end(), m) == modes.end())
        modes.push_back(m);
    }
    CollectiveChoice best;
    best.why = "no collectives rows for " + std::string(collective) + " " + std::string(dtype) + " on " +
               std::to_string(ranks) + " GPUs" + (launch_mode.empty() ? "" : " " + std::string(launch_mode)) + " (" + rows_machine() + ")";
    for (const auto& mode : modes) {
      CollectiveChoice c;
      c.launch_mode = mode;
      std::vector<detail::Point> pts;
      for (const Row* r : rows_of("collectives"))
        if (r->text("collective") == collective && r->text("dtype") == dtype && r->integer("gpus") == ranks &&
            r->text("launch_mode") == mode)
          pts.push_back({r->number("bytes"), r});
      const Row* row = pick_on_axis(pts, static_cast<double>(bytes), "", &c, std::string(collective) + " " + mode);
      if (row) {
        c.impl = row->text("impl");
        c.family = row->text("family");
        c.config = row->text("config");
        c.time_us = row->number("time_us");
        c.speedup_vs_nccl = row->number("speedup_vs_nccl");
        if (c.basis == Basis::measured) c.estimate_us = c.time_us;
        if (row->at("sms").kind != Value::null) {
          c.sms = detail::to_int(row->integer("sms"));
          c.threads = detail::to_int(row->integer("threads"));
        } else {
          detail::parse_grid(c.config, &c.sms, &c.threads);
        }
      }
      const double est = c.estimate_us > 0 ? c.estimate_us : c.time_us;
      const double best_est = best.estimate_us > 0 ? best.estimate_us : best.time_us;
      if (best.basis == Basis::refused && (c.ok() || best.launch_mode.empty())) best = c;
      else if (c.ok() && est < best_est) best = c;
    }
    return best;
  }

  // Intra- or inter-SM overlap and communication SMs for a fused `op` (gemm_rs, ag_gemm,
  // gemm_ar) with local GEMM shape m x n x k over `ranks` GPUs.
  SplitChoice choose_split(std::string_view op, long long m, long long n, long long k, int ranks) const {
    SplitChoice c;
    const std::string what = "fused " + std::string(op) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    std::vector<const Row*> rs;
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {0, 0, 0};
    for (const Row* r : rows_of("fused")) {
      if (r->text("op") != op || r->integer("gpus") != ranks) continue;
      rs.push_back(r);
      const double d[3] = {r->number("m"), r->number("n"), r->number("k")};
      for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], d[i]), hi[i] = std::max(hi[i], d[i]);
    }
    if (rs.empty()) {
      c.why = "refused: no " + std::string(op) + " rows on " + std::to_string(ranks) + " GPUs (" + rows_machine() + ")";
      return c;
    }
    const double q[3] = {static_cast<double>(m), static_cast<double>(n), static_cast<double>(k)};
    const Row* near = nullptr;
    double best = 0;
    std::vector<std::pair<double, const Row*>> by_distance;
    for (const Row* r : rs) {
      const double d[3] = {r->number("m"), r->number("n"), r->number("k")};
      double dist = 0;
      for (int i = 0; i < 3; ++i) dist += std::pow(detail::log2d(q[i]) - detail::log2d(d[i]), 2);
      by_distance.push_back({dist, r});
      if (!near || dist < best - 1e-12 || (std::fabs(dist - best) <= 1e-12 && r->integer("comm_sms") < near->integer("comm_sms")))
        near = r, best = dist;
    }
    bool inside = true;
    for (int i = 0; i < 3; ++i) inside &= q[i] >= lo[i] && q[i] <= hi[i];
    c.from.push_back(near->text("source"));
    if (best == 0) {
      c.basis = Basis::measured;
      c.why = what + ": measured";
    } else if (inside) {
      c.basis = Basis::interpolated;
      c.why = what + ": not measured; the nearest measured shape on a log2 scale (" + shape(*near) + ")";
    } else if (opt_.extrapolate) {
      c.basis = Basis::predicted;
      c.why = what + ": outside the measured shapes; the nearest edge (" + shape(*near) + "), extrapolated";
    } else {
      c.why = what + ": refused: outside the measured shapes (nearest " + shape(*near) + ")";
      return c;
    }
    c.overlap = near->text("overlap");
    c.impl = near->text("impl");
    c.comm_sms = detail::to_int(near->integer("comm_sms"));
    c.time_us = near->number("time_us");
    c.estimate_us = c.time_us * (q[0] * q[1] * q[2]) / (near->number("m") * near->number("n") * near->number("k"));
    return c;
  }

 private:
  std::string machine_;
  Options opt_;
  std::vector<Table> tables_;

  static std::string shape(const Row& r) { return r.text("m") + "x" + r.text("n") + "x" + r.text("k"); }

  std::vector<const Row*> rows_of(std::string_view name) const {
    std::vector<const Row*> out;
    for (const auto& t : tables_)
      if (t.name == name)
        for (const auto& r : t.rows)
          if (r.text("machine") == rows_machine()) out.push_back(&r);
    return out;
  }

  static bool same_config(const Row& a, const Row& b) {
    for (const char* k : {"mechanism", "impl", "config", "sms", "threads", "blocks_per_sm", "pipeline_depth", "vec_bytes", "unroll"})
      if (a.text(k) != b.text(k)) return false;
    return true;
  }

  // The size-axis rule stated at the top of this file. `tiebreak`: the column of SMs ("" for
  // none). Fills basis, why, from, estimate_us of `a`; returns the row, nullptr if refused.
  const Row* pick_on_axis(std::vector<detail::Point> pts, double at, const std::string& tiebreak, Answer* a,
                          const std::string& what) const {
    const std::string req = what + " at " + std::to_string(detail::to_ull(at)) + " B";
    if (pts.empty()) {
      a->why = "refused: no rows for " + what + " (" + rows_machine() + ")";
      return nullptr;
    }
    const detail::Point* lower = nullptr;
    const detail::Point* upper = nullptr;
    for (const auto& p : pts) {
      if (p.at == at) {
        a->basis = Basis::measured;
        a->why = req + ": measured";
        a->from = {p.row->text("source")};
        return p.row;
      }
      if (p.at < at && (!lower || p.at > lower->at)) lower = &p;
      if (p.at > at && (!upper || p.at < upper->at)) upper = &p;
    }
    if (!lower || !upper) {
      const detail::Point* edge = lower ? lower : upper;
      a->from = {edge->row->text("source")};
      if (!opt_.extrapolate) {
        a->why = req + ": refused: outside the measured range (nearest " + std::to_string(detail::to_ll(edge->at)) + " B)";
        return nullptr;
      }
      a->basis = Basis::predicted;
      a->why = req + ": outside the measured range; the nearest edge (" + std::to_string(detail::to_ll(edge->at)) + " B), extrapolated";
      return edge->row;
    }
    a->basis = Basis::interpolated;
    a->from = {lower->row->text("source"), upper->row->text("source")};
    const double dl = detail::log2d(at) - detail::log2d(lower->at), du = detail::log2d(upper->at) - detail::log2d(at);
    const Row* row = nullptr;
    if (lower->row == upper->row || same_config(*lower->row, *upper->row)) {
      row = lower->row;
      a->why = req + ": between " + std::to_string(detail::to_ll(lower->at)) + " and " +
               std::to_string(detail::to_ll(upper->at)) + " B, which choose the same configuration";
    } else {
      // Equal distance: the row chosen among more candidates (a row with a single candidate
      // made no choice), then fewer SMs, then the lower size.
      // (More candidates first: compared reversed, never negated, which would overflow on a
      // table's LLONG_MIN.)
      auto rank = [&](const Row* r) {
        return std::make_pair(r->integer("candidates"), tiebreak.empty() ? 0LL : r->integer(tiebreak));
      };
      const auto rl = rank(lower->row), ru = rank(upper->row);
      const bool lower_first = rl.first > ru.first || (rl.first == ru.first && rl.second <= ru.second);
      const bool take_lower = dl < du || (dl == du && lower_first);
      row = take_lower ? lower->row : upper->row;
      a->why = req + ": between " + std::to_string(detail::to_ll(lower->at)) + " and " +
               std::to_string(detail::to_ll(upper->at)) + " B, which differ: the nearer on a log2 scale (" +
               std::to_string(detail::to_ll(take_lower ? lower->at : upper->at)) + " B)";
    }
    // Estimate: log-linear between the neighbours' measured times per op.
    auto time_of = [](const detail::Point& p) {
      const double g = p.row->number("gbps");
      if (g > 0) return p.at / g / 1e3;
      return p.row->number("time_us");
    };
    const double tl = time_of(*lower), tu = time_of(*upper);
    if (tl > 0 && tu > 0) a->estimate_us = std::exp2(detail::log2d(tl) + (detail::log2d(tu) - detail::log2d(tl)) * dl / (dl + du));
    return row;
  }
};

// ---- The generated header pkbench_tuning.h (pkbench_tune) ----
// Each of its tables is data: a row struct, `inline constexpr` rows, the struct's columns as
// Column<Row>s and a lookup_<table>() that names its keys. Reading the rows and finding one
// are the same for every table: here.

// One column of a generated row struct: its name and its member.
template <class R>
struct Column {
  // Member-pointer types through aliases: g++ 13 reads `T R::*name` in a class template as a
  // declaration with unnecessary parentheses (-Wparentheses) in every consumer's build.
  using TextMember = const char* R::*;
  using IntegerMember = long long R::*;
  using NumberMember = double R::*;
  using BooleanMember = bool R::*;
  const char* name;
  TextMember text = nullptr;
  IntegerMember integer = nullptr;
  NumberMember number = nullptr;
  BooleanMember boolean = nullptr;
  constexpr Column(const char* n, const char* R::*m) : name(n), text(m) {}
  constexpr Column(const char* n, long long R::*m) : name(n), integer(m) {}
  constexpr Column(const char* n, double R::*m) : name(n), number(m) {}
  constexpr Column(const char* n, bool R::*m) : name(n), boolean(m) {}

  // Its cell of `r`; an empty text is an empty cell, as in the CSV.
  Value of(const R& r) const {
    Value x;
    if (text) {
      if (r.*text && *(r.*text)) x.kind = Value::text, x.s = r.*text;
    } else if (integer) {
      x.kind = Value::integer, x.i = r.*integer;
    } else if (number) {
      x.kind = Value::number, x.d = r.*number;
    } else {
      x.kind = Value::boolean, x.b = r.*boolean;
    }
    return x;
  }
};

// The lookup of a table without a size bucket: the first row that `matches` the keys;
// nullptr if none.
template <class R, class Match>
constexpr const R* lookup_row(const R* rows, std::size_t n, Match&& matches) {
  for (std::size_t i = 0; i < n; ++i)
    if (matches(rows[i])) return &rows[i];
  return nullptr;
}

// The lookup of a table whose rows are size buckets starting at column `from`: among the rows
// that `matches` the keys, the one whose bucket starts at the largest size <= bytes (the
// smallest bucket for sizes below every bucket); nullptr if none matches.
template <class R, class Match>
constexpr const R* lookup_bucket(const R* rows, std::size_t n, long long R::*from, unsigned long long bytes,
                                 Match&& matches) {
  const R* best = nullptr;
  const R* smallest = nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    const R& r = rows[i];
    if (!matches(r)) continue;
    const long long start = r.*from;
    if (!smallest || start < smallest->*from) smallest = &r;
    if (start >= 0 && static_cast<unsigned long long>(start) <= bytes && (!best || start > best->*from)) best = &r;
  }
  return best ? best : smallest;
}

// Turns the generated header's tables (its for_each_table()) into Tables for load_compiled().
struct CompiledSink {
  std::vector<Table>* tables;
  template <class R, std::size_t C>
  void operator()(const char* name, int schema_version, const R* rows, std::size_t n,
                  const Column<R> (&columns)[C]) const {
    if (n == 0) return;  // an empty table in the header: nothing measured
    Table t;
    t.name = name;
    t.origin = "pkbench_tuning.h";
    t.schema_version = schema_version;
    for (std::size_t i = 0; i < n; ++i) {
      Row row;
      for (const Column<R>& c : columns) row.cells.emplace(c.name, c.of(rows[i]));
      t.rows.push_back(std::move(row));
    }
    tables->push_back(std::move(t));
  }
};

}  // namespace pkbench::tuning

#endif  // C++17
