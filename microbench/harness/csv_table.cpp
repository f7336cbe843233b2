#include "microbench/harness/csv_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "microbench/harness/point_cost.h"
#include "microbench/harness/tidy_csv.h"
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
// rows). A line's trailing '\r' is dropped; the last line may lack its '\n'. A line longer than
// kMaxCsvLineBytes is refused with its file and line (CsvError, exit 2): the buffer never holds
// more than one block plus one line, so memory stays bounded whatever the input.
class LineSource {
 public:
  explicit LineSource(const std::string& path) : f_(std::fopen(path.c_str(), "rb")), path_(path) {
    if (!f_) throw CsvError(path + ": cannot open: " + std::strerror(errno));
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
        ++line_no_;
        check_length(len);
        line = std::string_view(buf_.data() + pos_, len);
        pos_ += len + 1;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      if (eof_) {
        if (pos_ == end_) return false;
        ++line_no_;
        check_length(end_ - pos_);
        line = std::string_view(buf_.data() + pos_, end_ - pos_);
        pos_ = end_;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        return true;
      }
      // Keep the partial line, read the next block after it.
      const size_t keep = end_ - pos_;
      if (keep > kMaxCsvLineBytes) {
        ++line_no_;
        check_length(keep);
      }
      if (keep + kBlock > buf_.size()) buf_.resize(std::max(buf_.size() * 2, keep + kBlock));
      std::memmove(buf_.data(), buf_.data() + pos_, keep);
      pos_ = 0;
      end_ = keep;
      const size_t got = std::fread(buf_.data() + end_, 1, kBlock, f_);
      if (got < kBlock) {
        if (std::ferror(f_)) throw CsvError(path_ + ": read error: " + std::strerror(errno));
        eof_ = true;
      }
      end_ += got;
    }
  }

 private:
  void check_length(size_t len) const {
    if (len > kMaxCsvLineBytes)
      throw CsvError(path_ + ":" + std::to_string(line_no_) + ": line longer than " +
                     std::to_string(kMaxCsvLineBytes >> 10) + " KiB (" +
                     (len > kMaxCsvLineBytes + kBlock ? "more than " : "") + std::to_string(len) +
                     " bytes read): not a study CSV");
  }
  static constexpr size_t kBlock = 16u << 20;
  size_t line_no_ = 0;
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

// The suite's columns carry their unit in the name (docs/measurement.md): a time, a bandwidth, a size
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

std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string_view> cells;
  split(line, cells);
  return {cells.begin(), cells.end()};
}

bool StudySchema::declares(std::string_view column) const {
  return std::find(columns.begin(), columns.end(), column) != columns.end();
}

StudySchema declared_study(std::string name, const std::vector<std::string>& columns, std::string declared_by) {
  StudySchema s{std::move(name), std::move(declared_by), columns, ""};
  for (const auto& m : metadata_columns())
    if (!s.declares(m)) s.columns.push_back(m);
  for (const auto& m : point_cost_columns())
    if (!s.declares(m)) s.columns.push_back(m);
  return s;
}

const StudySchemas* own_study_schemas(const std::string& study, ColumnsFunction columns, const std::string& declared_by) {
  if (!columns) return nullptr;
  static std::mutex m;
  static std::map<std::pair<std::string, std::string>, StudySchemas> built;  // node-based: a list never moves
  const std::lock_guard<std::mutex> lock(m);
  auto [it, added] = built.try_emplace({study, declared_by});
  if (added) it->second = {declared_study(study, columns(), declared_by)};
  return &it->second;
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
    throw CsvError(m.size() <= 2000 ? std::string(m) : clip(m, 2000));
  }
}

// One read of one file: the header, the fields declared, the rows; each step a method.
class CsvTable::Reader {
 public:
  Reader(CsvTable& t, const std::string& path, const ReadOptions& options)
      : t_(t), path_(path), options_(options), in_(path) {}

  void read(const std::vector<Field>& fields) {
    read_header();
    declare(fields);
    if (t_.cols_[study_f_].header_index < 0) check_header("", 1);
    size_t line = 1;
    std::string_view l;
    while (in_.next(l)) {
      ++line;
      if (l.empty()) continue;
      if (first_line_ == 0) first_row(l, line);
      else next_row(l, line);
      for (int f : absent_) store(f, std::string_view(), line);
      t_.lines_.push_back(static_cast<uint32_t>(line));
    }
    if (first_line_ == 0 && study_hi_ >= 0) check_header("", 1);  // a header and no rows
    take_machine();
  }

 private:
  CsvTable& t_;
  const std::string& path_;
  const ReadOptions& options_;
  LineSource in_;
  std::vector<std::string_view> cells_;
  int study_f_ = -1, machine_f_[3] = {-1, -1, -1};
  // Header positions of the study and machine columns (-1: absent); every row must repeat
  // the first row's values there.
  int study_hi_ = -1, machine_hi_[3] = {-1, -1, -1};
  std::vector<int> field_of_;  // which declared field each header column feeds (-1: none)
  std::vector<int> absent_;    // the declared fields the file lacks
  std::vector<std::unordered_map<std::string, uint32_t, Hash, Eq>> intern_;
  std::vector<std::string_view> last_;
  std::vector<uint32_t> last_code_;
  std::string first_machine_[3];
  size_t first_line_ = 0;  // 0 until the first row is read

  void read_header() {
    std::string_view header;
    if (!in_.next(header) || header.empty()) throw std::runtime_error(where(path_, 1, 0) + " empty file (no header line)");
    split(header, cells_);
    std::unordered_map<std::string_view, size_t> names;  // a set: a 100k-column header stays linear
    for (size_t i = 0; i < cells_.size(); ++i) {
      const std::string name(cells_[i]);
      if (name.find('"') != std::string::npos)
        throw std::runtime_error(where(path_, 1, i + 1) + " quoted header field " + quote_value(name) +
                                 ": not a pkbench CSV (pkbench writes plain fields)");
      if (name.empty()) throw std::runtime_error(where(path_, 1, i + 1) + " empty column name: not a pkbench CSV");
      if (!names.emplace(cells_[i], i).second)
        throw std::runtime_error(where(path_, 1, i + 1) + " column " + quote_value(name) + " appears twice (also field " +
                                 std::to_string(names[cells_[i]] + 1) + ")");
      t_.header_.push_back(name);
    }
  }

  // The fields: the caller's, plus the ones that say whose file this is.
  void declare(const std::vector<Field>& fields) {
    t_.fields_ = fields;
    auto ensure = [&](const char* name) {
      if (std::none_of(t_.fields_.begin(), t_.fields_.end(), [&](const Field& f) { return f.name == name; }))
        t_.fields_.push_back({name, ColumnType::text, false});
    };
    ensure(kStudyColumn);
    for (const char* m : kMachineColumns) ensure(m);
    t_.cols_.resize(t_.fields_.size());
    field_of_.assign(t_.header_.size(), -1);
    for (size_t f = 0; f < t_.fields_.size(); ++f) {
      Column& c = t_.cols_[f];
      c.decl = t_.fields_[f];
      if (c.decl.type != ColumnType::text && measured_by_name(c.decl.name)) c.decl.non_negative = true;
      if (!t_.field_index_.emplace(c.decl.name, static_cast<int>(f)).second)
        throw std::logic_error("reader of " + path_ + " declares column '" + c.decl.name + "' twice");
      auto it = std::find(t_.header_.begin(), t_.header_.end(), c.decl.name);
      if (it != t_.header_.end()) c.header_index = static_cast<int>(it - t_.header_.begin());
      c.values.push_back("");  // code 0 = empty
      if (c.header_index >= 0) field_of_[c.header_index] = static_cast<int>(f);
      else absent_.push_back(static_cast<int>(f));
    }
    study_f_ = t_.field_index_.at(kStudyColumn);
    study_hi_ = t_.cols_[study_f_].header_index;
    for (int m = 0; m < 3; ++m) {
      machine_f_[m] = t_.field_index_.at(kMachineColumns[m]);
      machine_hi_[m] = t_.cols_[machine_f_[m]].header_index;
    }
    intern_.resize(t_.cols_.size());
    last_.resize(t_.cols_.size());
    last_code_.assign(t_.cols_.size(), 0);
  }

  // The declaration the header must follow: the expected study's, else the one the first row
  // names (checked once the first row is read).
  void check_header(const std::string& study, size_t line) {
    const std::string& expected = options_.study;
    if (!expected.empty() && !study.empty() && study != expected)
      throw std::runtime_error(where(path_, line, study_hi_ + 1, kStudyColumn) + " " + quote_value(study) +
                               ", expected '" + expected + "': this is a " + clip(study, 80) + " CSV, not a " +
                               expected + " one");
    const std::string name = expected.empty() ? study : expected;
    const StudySchema* schema = options_.schemas ? find_study(*options_.schemas, name) : nullptr;
    const bool built = schema && schema->built();
    if (built)
      for (size_t i = 0; i < t_.header_.size(); ++i)
        if (!schema->declares(t_.header_[i])) {
          const std::string whose = study_with_columns(*options_.schemas, t_.header_);
          throw std::runtime_error(where(path_, 1, i + 1, t_.header_[i]) + " not a column of the " + name +
                                   " study (declared by " + schema->declared_by + ")" +
                                   (whose.empty() ? ": not a " + name + " CSV" : ": this looks like a " + whose + " CSV"));
        }
    for (const Column& c : t_.cols_)
      if (c.decl.required && c.header_index < 0) {
        std::string hint;
        if (built && !schema->declares(c.decl.name))
          hint = " (the " + name + " study does not declare it: this reader needs a newer study)";
        else if (built)
          hint = " (the " + name + " study declares it: the file was written by an older version)";
        throw std::runtime_error(where(path_, 1, 0) + " missing column '" + c.decl.name + "'" + hint);
      }
  }

  // A number or an integer: the whole value, `valid`, and not negative where declared so;
  // `empty` for an empty value.
  template <class X, class Valid>
  X parse(const Column& c, std::string_view v, size_t line, X empty, const char* what, Valid valid) const {
    X x = empty;
    if (v.empty()) return x;
    auto refuse = [&](const char* why) {
      return std::runtime_error(where(path_, line, c.header_index + 1, c.decl.name) + " " + quote_value(v) + why);
    };
    auto r = std::from_chars(v.data(), v.data() + v.size(), x);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !valid(x)) throw refuse(what);
    if (c.decl.non_negative && x < 0) throw refuse(" is negative");
    return x;
  }

  // Text is interned per column: a code per row (the last value's code reused without a lookup).
  uint32_t intern(int f, std::string_view v) {
    if (v.empty()) return 0;
    if (last_code_[f] != 0 && same(v, last_[f])) return last_code_[f];
    Column& c = t_.cols_[f];
    auto it = intern_[f].find(v);
    if (it == intern_[f].end()) {
      c.values.emplace_back(v);
      it = intern_[f].emplace(c.values.back(), static_cast<uint32_t>(c.values.size() - 1)).first;
    }
    last_[f] = it->first;  // node keys stay put; the values vector may move
    last_code_[f] = it->second;
    return it->second;
  }

  void store(int f, std::string_view v, size_t line) {
    Column& c = t_.cols_[f];
    switch (c.decl.type) {
      case ColumnType::text: c.codes.push_back(intern(f, v)); break;
      case ColumnType::number:
        c.numbers.push_back(parse(c, v, line, std::nan(""), " is not a number", [](double x) { return std::isfinite(x); }));
        break;
      case ColumnType::integer:
        c.integers.push_back(
            parse(c, v, line, kEmptyInteger, " is not an integer", [](int64_t x) { return x != kEmptyInteger; }));
        break;
    }
  }

  std::runtime_error bad_count(size_t n, size_t line) const {
    const size_t ncols = t_.header_.size();
    return std::runtime_error(where(path_, line, 0) + " " + std::to_string(n) + " fields, the header has " +
                              std::to_string(ncols) + (n > ncols ? " (a value with a comma?)" : " (a truncated line?)"));
  }

  // The first row decides whose file this is: split it whole, check the header, make room
  // for every row at once (the file's size over the first row's length).
  void first_row(std::string_view l, size_t line) {
    first_line_ = line;
    const size_t n = split(l, cells_);
    if (n != t_.header_.size()) throw bad_count(n, line);
    if (study_hi_ >= 0) check_header(std::string(cells_[study_hi_]), line);
    if (study_hi_ >= 0) t_.study_ = std::string(cells_[study_hi_]);
    for (int m = 0; m < 3; ++m)
      if (machine_hi_[m] >= 0) first_machine_[m] = std::string(cells_[machine_hi_[m]]);
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path_, ec);
    if (!ec) {
      const size_t est = static_cast<size_t>(bytes / (l.size() + 1)) + 16;
      t_.lines_.reserve(est);
      for (Column& c : t_.cols_) {
        if (c.decl.type == ColumnType::number) c.numbers.reserve(est);
        else if (c.decl.type == ColumnType::integer) c.integers.reserve(est);
        else c.codes.reserve(est);
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (field_of_[i] >= 0) store(field_of_[i], cells_[i], line);
  }

  // One pass over the line: each field is checked and stored as it is found.
  void next_row(std::string_view l, size_t line) {
    const size_t ncols = t_.header_.size();
    const char* p = l.data();
    const char* end = p + l.size();
    size_t i = 0;
    while (true) {
      const char* fe = p;
      while (fe < end && *fe != ',') ++fe;
      const std::string_view v(p, static_cast<size_t>(fe - p));
      if (i < ncols) {
        check_same_file(i, v, line);
        if (field_of_[i] >= 0) store(field_of_[i], v, line);
      }
      ++i;
      if (fe == end) break;
      p = fe + 1;
    }
    if (i != ncols) throw bad_count(i, line);
  }

  // Every row repeats the first row's study and (unless allowed otherwise) machine.
  void check_same_file(size_t i, std::string_view v, size_t line) const {
    if (static_cast<int>(i) == study_hi_ && !same(v, t_.study_))
      throw std::runtime_error(where(path_, line, i + 1, kStudyColumn) + " " + quote_value(v) + " but line " +
                               std::to_string(first_line_) + " has " + quote_value(t_.study_) +
                               ": rows of two studies in one file");
    if (!options_.one_machine) return;
    for (int m = 0; m < 3; ++m)
      if (static_cast<int>(i) == machine_hi_[m] && !same(v, first_machine_[m]))
        throw std::runtime_error(where(path_, line, i + 1, kMachineColumns[m]) + " " + quote_value(v) + " but line " +
                                 std::to_string(first_line_) + " has " + quote_value(first_machine_[m]) +
                                 ": rows from two machines or GPU counts in one table (keep one file per machine)");
  }

  void take_machine() {
    t_.machine_.gpu_name = first_machine_[0];
    t_.machine_.host = first_machine_[2];
    const std::string& count = first_machine_[1];
    if (count.empty()) return;
    int n = 0;
    auto r = std::from_chars(count.data(), count.data() + count.size(), n);
    if (r.ec != std::errc() || r.ptr != count.data() + count.size())
      throw std::runtime_error(where(path_, first_line_, machine_hi_[1] + 1, "gpu_count") + " " + quote_value(count) +
                               " is not an integer");
    t_.machine_.gpu_count = n;
  }
};

CsvTable CsvTable::read_unclipped(const std::string& path, const std::vector<Field>& fields,
                                  const ReadOptions& options) {
  CsvTable t;
  t.path_ = path;
  Reader(t, path, options).read(fields);
  return t;
}

CsvTable read_study_csv(const std::string& path, const std::string& study, std::vector<Field> fields, StudyFile* file,
                        const StudySchemas* schemas) {
  for (const char* meta : {"git_commit", "peer_mode"})
    if (std::none_of(fields.begin(), fields.end(), [&](const Field& f) { return f.name == meta; }))
      fields.push_back({meta, ColumnType::text, false});
  ReadOptions o;
  o.study = study;
  o.schemas = schemas;
  CsvTable t = CsvTable::read(path, fields, o);
  file->path = path;
  file->machine = t.machine();
  file->total = t.rows();
  if (t.rows()) {
    file->git_commit = std::string(t.text(0, "git_commit"));
    file->peer_mode = std::string(t.text(0, "peer_mode"));
  }
  return t;
}

}  // namespace pk
