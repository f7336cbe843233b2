#include "microbench/harness/tidy_csv.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace pk {

const std::vector<std::string>& metadata_columns() {
  static const std::vector<std::string> c = {"gpu_name",     "gpu_count",   "driver_version", "cuda_runtime",
                                             "cuda_driver",  "peer_mode",   "ranks",  "git_commit",     "host",
                                             "timestamp_utc"};
  return c;
}

TidyCsv::TidyCsv(std::string path, std::vector<std::string> columns)
    : path_(std::move(path)), columns_(std::move(columns)) {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!index_.emplace(columns_[i], i).second)
      throw std::invalid_argument("duplicate CSV column: " + columns_[i]);
  }
}

std::string plain_field(std::string v) {
  for (char& c : v) {
    if (c == ',') c = ';';
    else if (c == '"') c = '\'';
    else if (c == '\n' || c == '\r') c = ' ';
  }
  return v;
}

void TidyCsv::append(const Row& row) {
  std::vector<std::string> out(columns_.size());
  for (const auto& [k, v] : row) {
    auto it = index_.find(k);
    if (it == index_.end()) throw std::invalid_argument("column not in schema: " + k);
    out[it->second] = plain_field(v);
  }
  rows_.push_back(std::move(out));
}

std::string csv_escape(const std::string& f) {
  if (f.find_first_of(",\"\n\r") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) line += ',';
    line += csv_escape(fields[i]);
  }
  return line + "\n";
}

std::string fmt_num(double v, int significant) {
  if (std::isnan(v) || std::isinf(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

namespace {
// Writes contents to tmp; on any failure removes tmp and throws naming it.
void write_temporary(const std::string& tmp, const std::string& contents) {
  try {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << contents;
    f.flush();
    if (!f) throw std::runtime_error("short write to " + tmp + " (disk full?)");
    f.close();
    if (!f) throw std::runtime_error("short write to " + tmp + " (disk full?)");
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    throw;
  }
}
}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
  write_files_atomically({{path, contents}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> tmps;
  try {
    for (const auto& [path, contents] : files) {
      std::filesystem::path p(path);
      if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
      tmps.push_back(path + ".tmp." + std::to_string(::getpid()));
      write_temporary(tmps.back(), contents);
    }
  } catch (...) {
    // Nothing renamed yet: the old files stay as they were, no temporary is left.
    std::error_code ec;
    for (const auto& t : tmps) std::filesystem::remove(t, ec);
    throw;
  }
  // Every file is whole on disk; renames within one folder do not run out of space.
  for (size_t i = 0; i < files.size(); ++i) std::filesystem::rename(tmps[i], files[i].first);
}

void TidyCsv::flush() {
  if (!on_disk_) {
    std::string s = csv_line(columns_);
    for (const auto& r : rows_) s += csv_line(r);
    write_file_atomically(path_, s);
    on_disk_ = true;
    flushed_ = rows_.size();
    return;
  }
  if (flushed_ == rows_.size()) return;
  std::string s;
  for (size_t i = flushed_; i < rows_.size(); ++i) s += csv_line(rows_[i]);
  const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot append to " + path_ + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw std::runtime_error("short write to " + path_ + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) throw std::runtime_error("cannot append to " + path_ + ": " + std::strerror(errno));
  flushed_ = rows_.size();
}

}  // namespace pk
