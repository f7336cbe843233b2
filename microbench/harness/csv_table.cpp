#include "microbench/harness/csv_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "pkbench/tuning.h"

namespace pk {
namespace {

// The columns every reader gets whether it asks or not: they say whose file this is.
const char* const kStudyColumn = "study";
const char* const kMachineColumns[] = {"gpu_name", "gpu_count", "host"};

struct Hash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct Eq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

// Lines of a file, read in 16 MiB blocks and cut with memchr (the Fast C++ CSV Parser's
// LineReader, used here first, scans byte by byte: a third of the budget for a million
// rows). A line's trailing '\r' is dropped; the last line may lack its '\n'.
class LineSource {
 public:
  explicit LineSource(const std::string& path) : f_(std::fopen(path.c_str(), "rb")), path_(path) {
    if (!f_) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  }
  ~LineSource() {
    if (f_) std::fclose(f_);
  }
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;
  // The next line (without its end), or false at the end of the file.
  bool next(std::string_view& line) {
    while (true) {
      const char* nl = static_cast<const char*>(std::memchr(buf_.data() + pos_, '\n', end_ - pos_));
      if (nl) {
        size_t len = static_cast<size_t>(nl - (buf_.data() + pos_));
        line = std::string_view(buf_.data() + pos_, len);
        pos_ += len + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        line = std::string_view(buf_.data() + pos_, end_ - pos_);
        pos_ = end_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      // Keep the partial line, read the next block after it.
      const size_t keep = end_ - pos_;
      if (keep + kBlock > buf_.size()) buf_.resize(std::max(buf_.size() * 2, keep + kBlock));
      std::memmove(buf_.data(), buf_.data() + pos_, keep);
      pos_ = 0;
      end_ = keep;
      const size_t got = std::fread(buf_.data() + end_, 1, kBlock, f_);
      if (got < kBlock) {
        if (std::ferror(f_)) throw std::runtime_error(path_ + ": read error: " + std::strerror(errno));
        eof_ = true;
      }
      end_ += got;
    }
  }

 private:
  static constexpr size_t kBlock = 16u << 20;
  std::FILE* f_;
  std::string path_;
  std::vector<char> buf_ = std::vector<char>(kBlock);
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
};

// Splits `line` on commas into `out` (views into the line); returns the field count.
size_t split(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  const char* p = line.data();
  const char* end = line.data() + line.size();
  while (true) {
    const char* c = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
    if (!c) {
      out.emplace_back(p, static_cast<size_t>(end - p));
      return out.size();
    }
    out.emplace_back(p, static_cast<size_t>(c - p));
    p = c + 1;
  }
}

// Equality of two short strings without a call to memcmp (most cells are a few bytes).
inline bool same(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// The suite's columns carry their unit in the name (DESIGN.md): a time, a bandwidth, a size
// or a rate is measured, never negative, whichever reader declares it.
bool measured_by_name(const std::string& n) {
  auto ends = [&](const char* suf) {
    const size_t k = std::strlen(suf);
    return n.size() >= k && n.compare(n.size() - k, k, suf) == 0;
  };
  return n.rfind("time_us", 0) == 0 || n.rfind("tflops", 0) == 0 || n.find("gbps") != std::string::npos ||
         ends("bytes");
}

std::string quote_value(std::string_view v) { return "'" + clip(v, 80) + "'"; }

}  // namespace

std::string clip(std::string_view v, size_t n) {
  if (v.size() <= n) return std::string(v);
  return std::string(v.substr(0, n)) + "...";
}

std::string where(const std::string& path, size_t line, size_t field, const std::string& column) {
  std::string w = path;
  if (line) w += ":" + std::to_string(line);
  if (line && field) w += ":" + std::to_string(field);
  w += ":";
  if (!column.empty()) w += " column " + quote_value(column) + ":";
  return w;
}

// One spelling of the machine key for the sweeps and the installed lookup API.
std::string machine_key(const std::string& gpu_name, int gpu_count) {
  return pkbench::tuning::machine_key(gpu_name, gpu_count);
}

std::string Machine::key() const { return machine_key(gpu_name, gpu_count); }

std::string Machine::describe() const {
  std::string d = (gpu_name.empty() ? std::string("unknown GPU") : gpu_name) + " x" + std::to_string(gpu_count);
  if (!host.empty()) d += " (host " + host + ")";
  return d;
}

CsvPeek peek_csv(const std::string& path) {
  CsvPeek p;
  LineSource in(path);
  std::string_view h, l;
  if (!in.next(h)) return p;
  std::vector<std::string_view> cells;
  split(h, cells);
  for (auto c : cells) p.header.emplace_back(c);
  auto it = std::find(p.header.begin(), p.header.end(), kStudyColumn);
  if (it == p.header.end()) return p;
  bool got = in.next(l);
  while (got && l.empty()) got = in.next(l);
  if (got && split(l, cells) > static_cast<size_t>(it - p.header.begin())) p.study = std::string(cells[it - p.header.begin()]);
  return p;
}

bool StudySchema::declares(std::string_view column) const {
  return std::find(columns.begin(), columns.end(), column) != columns.end();
}

const StudySchema* find_study(const StudySchemas& schemas, std::string_view name) {
  for (const auto& s : schemas)
    if (s.name == name) return &s;
  return nullptr;
}

std::string study_with_columns(const StudySchemas& schemas, const std::vector<std::string>& header) {
  for (const auto& s : schemas) {
    if (!s.built()) continue;
    if (std::all_of(header.begin(), header.end(), [&](const std::string& c) { return s.declares(c); })) return s.name;
  }
  return "";
}

bool CsvTable::has(const std::string& column) const {
  return std::find(header_.begin(), header_.end(), column) != header_.end();
}

int CsvTable::field(const std::string& column) const {
  auto it = field_index_.find(column);
  if (it == field_index_.end())
    throw std::logic_error(path_ + ": column '" + column + "' was not declared when the file was read");
  return it->second;
}

bool CsvTable::empty(size_t row, int f) const {
  const Column& c = cols_[f];
  switch (c.decl.type) {
    case ColumnType::number: return std::isnan(c.numbers[row]);
    case ColumnType::integer: return c.integers[row] == kEmptyInteger;
    case ColumnType::text: return c.codes[row] == 0;
  }
  return true;
}

std::string_view CsvTable::text(size_t row, int f) const {
  const Column& c = cols_[f];
  if (c.decl.type != ColumnType::text)
    throw std::logic_error(path_ + ": column '" + c.decl.name + "' was declared as a number, read as text");
  return c.values[c.codes[row]];
}

double CsvTable::number(size_t row, int f, double empty_value) const {
  const Column& c = cols_[f];
  if (c.decl.type == ColumnType::integer)
    return c.integers[row] == kEmptyInteger ? empty_value : static_cast<double>(c.integers[row]);
  if (c.decl.type != ColumnType::number)
    throw std::logic_error(path_ + ": column '" + c.decl.name + "' was declared as text, read as a number");
  return std::isnan(c.numbers[row]) ? empty_value : c.numbers[row];
}

int64_t CsvTable::integer(size_t row, int f, int64_t empty_value) const {
  const Column& c = cols_[f];
  if (c.decl.type != ColumnType::integer)
    throw std::logic_error(path_ + ": column '" + c.decl.name + "' was not declared as an integer");
  return c.integers[row] == kEmptyInteger ? empty_value : c.integers[row];
}

CsvTable CsvTable::read(const std::string& path, const std::vector<std::string>& required) {
  std::vector<Field> f;
  for (const auto& c : required) f.push_back({c, ColumnType::text, true});
  ReadOptions o;
  o.one_machine = false;
  return read(path, f, o);
}

CsvTable CsvTable::read(const std::string& path, const std::vector<Field>& fields, const ReadOptions& options) {
  try {
    return read_unclipped(path, fields, options);
  } catch (const std::runtime_error& e) {
    // Every value in a message is quoted clipped; this bounds what is left (a huge path).
    const std::string_view m = e.what();
    if (m.size() <= 2000) throw;
    throw std::runtime_error(clip(m, 2000));
  }
}

CsvTable CsvTable::read_unclipped(const std::string& path, const std::vector<Field>& fields,
                                  const ReadOptions& options) {
  CsvTable t;
  t.path_ = path;
  {
    LineSource in(path);
    std::string_view header;
    if (!in.next(header) || header.empty()) throw std::runtime_error(where(path, 1, 0) + " empty file (no header line)");
    std::vector<std::string_view> cells;
    split(header, cells);
    std::unordered_map<std::string_view, size_t> names;  // a set: a 100k-column header stays linear
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string name(cells[i]);
      if (name.find('"') != std::string::npos)
        throw std::runtime_error(where(path, 1, i + 1) + " quoted header field " + quote_value(name) +
                                 ": not a pkbench CSV (pkbench writes plain fields)");
      if (name.empty()) throw std::runtime_error(where(path, 1, i + 1) + " empty column name: not a pkbench CSV");
      if (!names.emplace(cells[i], i).second)
        throw std::runtime_error(where(path, 1, i + 1) + " column " + quote_value(name) + " appears twice (also field " +
                                 std::to_string(names[cells[i]] + 1) + ")");
      t.header_.push_back(name);
    }

    // The fields: the caller's, plus the ones that say whose file this is.
    t.fields_ = fields;
    auto ensure = [&](const char* name) {
      if (std::none_of(t.fields_.begin(), t.fields_.end(), [&](const Field& f) { return f.name == name; }))
        t.fields_.push_back({name, ColumnType::text, false});
    };
    ensure(kStudyColumn);
    for (const char* m : kMachineColumns) ensure(m);
    t.cols_.resize(t.fields_.size());
    for (size_t f = 0; f < t.fields_.size(); ++f) {
      Column& c = t.cols_[f];
      c.decl = t.fields_[f];
      if (c.decl.type != ColumnType::text && measured_by_name(c.decl.name)) c.decl.non_negative = true;
      if (!t.field_index_.emplace(c.decl.name, static_cast<int>(f)).second)
        throw std::logic_error("reader of " + path + " declares column '" + c.decl.name + "' twice");
      auto it = std::find(t.header_.begin(), t.header_.end(), c.decl.name);
      if (it != t.header_.end()) {
        c.header_index = static_cast<int>(it - t.header_.begin());
      }
      c.values.push_back("");  // code 0 = empty
    }
    const int study_f = t.field_index_.at(kStudyColumn);
    int machine_f[3];
    for (int m = 0; m < 3; ++m) machine_f[m] = t.field_index_.at(kMachineColumns[m]);

    // The declaration the header must follow: the expected study's, else the one the first
    // row names. Checked once the first row is read.
    const StudySchema* schema = nullptr;
    auto check_header = [&](const std::string& study, size_t line) {
      if (!options.study.empty() && !study.empty() && study != options.study) {
        const int hi = t.cols_[study_f].header_index;
        throw std::runtime_error(where(path, line, hi + 1, kStudyColumn) + " " + quote_value(study) + ", expected '" +
                                 options.study + "': this is a " + clip(study, 80) + " CSV, not a " + options.study +
                                 " one");
      }
      const std::string name = options.study.empty() ? study : options.study;
      schema = options.schemas ? find_study(*options.schemas, name) : nullptr;
      if (schema && schema->built()) {
        for (size_t i = 0; i < t.header_.size(); ++i)
          if (!schema->declares(t.header_[i])) {
            std::string whose = study_with_columns(*options.schemas, t.header_);
            throw std::runtime_error(where(path, 1, i + 1, t.header_[i]) + " not a column of the " + name +
                                     " study (declared by " + schema->declared_by + ")" +
                                     (whose.empty() ? ": not a " + name + " CSV"
                                                    : ": this looks like a " + whose + " CSV"));
          }
      }
      for (const Column& c : t.cols_)
        if (c.decl.required && c.header_index < 0) {
          std::string hint;
          if (schema && schema->built() && !schema->declares(c.decl.name))
            hint = " (the " + name + " study does not declare it: this reader needs a newer study)";
          else if (schema && schema->built())
            hint = " (the " + name + " study declares it: the file was written by an older version)";
          throw std::runtime_error(where(path, 1, 0) + " missing column '" + c.decl.name + "'" + hint);
        }
    };
    if (t.cols_[study_f].header_index < 0) check_header("", 1);

    std::vector<std::unordered_map<std::string, uint32_t, Hash, Eq>> intern(t.cols_.size());
    std::vector<std::string_view> last(t.cols_.size());
    std::vector<uint32_t> last_code(t.cols_.size(), 0);
    std::vector<std::string> first_machine(3);
    size_t first_machine_line = 0;
    // Which declared field each header column feeds (-1: none), and the fields the file lacks.
    const size_t ncols = t.header_.size();
    std::vector<int> field_of(ncols, -1);
    std::vector<int> absent;
    for (size_t f = 0; f < t.cols_.size(); ++f) {
      if (t.cols_[f].header_index >= 0) field_of[t.cols_[f].header_index] = static_cast<int>(f);
      else absent.push_back(static_cast<int>(f));
    }
    // The machine columns' header positions: every row must repeat the first row's values.
    int machine_hi[3];
    for (int m = 0; m < 3; ++m) machine_hi[m] = t.cols_[machine_f[m]].header_index;
    const int study_hi = t.cols_[study_f].header_index;

    // A number or an integer: the whole value, `valid`, and not negative where declared so;
    // `empty` for an empty value.
    auto parse = [&](const Column& c, std::string_view v, size_t line, auto empty, const char* what, auto valid) {
      auto x = empty;
      if (v.empty()) return x;
      auto refuse = [&](const char* why) {
        return std::runtime_error(where(path, line, c.header_index + 1, c.decl.name) + " " + quote_value(v) + why);
      };
      auto r = std::from_chars(v.data(), v.data() + v.size(), x);
      if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !valid(x)) throw refuse(what);
      if (c.decl.non_negative && x < 0) throw refuse(" is negative");
      return x;
    };
    auto store = [&](int f, std::string_view v, size_t line) {
      Column& c = t.cols_[f];
      switch (c.decl.type) {
        case ColumnType::text: {
          uint32_t code = 0;
          if (v.empty()) {
            code = 0;
          } else if (last_code[f] != 0 && same(v, last[f])) {
            code = last_code[f];
          } else {
            auto it = intern[f].find(v);
            if (it == intern[f].end()) {
              code = static_cast<uint32_t>(c.values.size());
              c.values.emplace_back(v);
              it = intern[f].emplace(c.values.back(), code).first;
            }
            code = it->second;
            last[f] = it->first;  // node keys stay put; the values vector may move
            last_code[f] = code;
          }
          c.codes.push_back(code);
          break;
        }
        case ColumnType::number:
          c.numbers.push_back(parse(c, v, line, std::nan(""), " is not a number", [](double x) { return std::isfinite(x); }));
          break;
        case ColumnType::integer:
          c.integers.push_back(
              parse(c, v, line, kEmptyInteger, " is not an integer", [](int64_t x) { return x != kEmptyInteger; }));
          break;
      }
    };
    auto bad_count = [&](size_t n, size_t line) {
      return std::runtime_error(where(path, line, 0) + " " + std::to_string(n) + " fields, the header has " +
                                std::to_string(ncols) + (n > ncols ? " (a value with a comma?)" : " (a truncated line?)"));
    };

    size_t line = 1;
    bool first = true;
    std::string_view l;
    while (in.next(l)) {
      ++line;
      if (l.empty()) continue;
      if (first) {
        // The first row decides whose file this is: split it whole, check the header.
        first = false;
        const size_t n = split(l, cells);
        if (n != ncols) throw bad_count(n, line);
        if (study_hi >= 0) check_header(std::string(cells[study_hi]), line);
        if (study_hi >= 0) t.study_ = std::string(cells[study_hi]);
        for (int m = 0; m < 3; ++m)
          if (machine_hi[m] >= 0) first_machine[m] = std::string(cells[machine_hi[m]]);
        first_machine_line = line;
        // Room for every row at once: the file's size over the first row's length.
        std::error_code ec;
        const auto bytes = std::filesystem::file_size(path, ec);
        if (!ec) {
          const size_t est = static_cast<size_t>(bytes / (l.size() + 1)) + 16;
          t.lines_.reserve(est);
          for (Column& c : t.cols_) {
            if (c.decl.type == ColumnType::number) c.numbers.reserve(est);
            else if (c.decl.type == ColumnType::integer) c.integers.reserve(est);
            else c.codes.reserve(est);
          }
        }
        for (size_t i = 0; i < ncols; ++i)
          if (field_of[i] >= 0) store(field_of[i], cells[i], line);
      } else {
        // One pass over the line: each field is checked and stored as it is found.
        const char* p = l.data();
        const char* end = p + l.size();
        size_t i = 0;
        while (true) {
          const char* fe = p;
          while (fe < end && *fe != ',') ++fe;
          const std::string_view v(p, static_cast<size_t>(fe - p));
          if (i < ncols) {
            if (static_cast<int>(i) == study_hi && !same(v, t.study_))
              throw std::runtime_error(where(path, line, i + 1, kStudyColumn) + " " + quote_value(v) + " but line " +
                                       std::to_string(first_machine_line) + " has " + quote_value(t.study_) +
                                       ": rows of two studies in one file");
            if (options.one_machine)
              for (int m = 0; m < 3; ++m)
                if (static_cast<int>(i) == machine_hi[m] && !same(v, first_machine[m]))
                  throw std::runtime_error(
                      where(path, line, i + 1, kMachineColumns[m]) + " " + quote_value(v) + " but line " +
                      std::to_string(first_machine_line) + " has " + quote_value(first_machine[m]) +
                      ": rows from two machines or GPU counts in one table (keep one file per machine)");
            if (field_of[i] >= 0) store(field_of[i], v, line);
          }
          ++i;
          if (fe == end) break;
          p = fe + 1;
        }
        if (i != ncols) throw bad_count(i, line);
      }
      for (int f : absent) store(f, std::string_view(), line);
      t.lines_.push_back(static_cast<uint32_t>(line));
    }
    if (first && t.cols_[study_f].header_index >= 0) check_header("", 1);  // a header and no rows
    t.machine_.gpu_name = first_machine[0];
    t.machine_.host = first_machine[2];
    if (!first_machine[1].empty()) {
      int n = 0;
      auto r = std::from_chars(first_machine[1].data(), first_machine[1].data() + first_machine[1].size(), n);
      if (r.ec != std::errc() || r.ptr != first_machine[1].data() + first_machine[1].size())
        throw std::runtime_error(where(path, first_machine_line, t.cols_[machine_f[1]].header_index + 1, "gpu_count") +
                                 " " + quote_value(first_machine[1]) + " is not an integer");
      t.machine_.gpu_count = n;
    }
  }
  return t;
}

}  // namespace pk
