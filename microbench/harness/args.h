#pragma once
// Command-line values shared by the studies: sizes ("4K", "1G"), lists, ranges, and a small
// flag parser that leaves Google Benchmark's own flags alone. All errors are ArgError.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pk {

// "16", "4K", "4KiB", "2M", "1G": binary multiples. Rejects negatives, junk and overflow.
uint64_t parse_size(const std::string& s);
std::string format_size(uint64_t bytes);  // 16 -> "16B", 4096 -> "4KiB", 1<<30 -> "1GiB"

// Comma-separated items; an item may be a range "lo:hi" (doubling), "lo:hi:xF" (times F) or
// "lo:hi:+S" (plus S). Values are sizes (suffixes allowed). Sorted, duplicates dropped.
std::vector<uint64_t> parse_size_list(const std::string& s);
// Same grammar for plain integers; the word `all` stands for all_value.
std::vector<int> parse_int_list(const std::string& s, int all_value);
// Comma-separated names, each checked against `allowed`; `all` selects every allowed name.
std::vector<std::string> parse_name_list(const std::string& s, const std::vector<std::string>& allowed,
                                         const std::string& what);

class Flags {
 public:
  void add(const std::string& name, std::string* value, const std::string& help);
  void add(const std::string& name, int* value, const std::string& help);
  void add(const std::string& name, double* value, const std::string& help);
  void add(const std::string& name, uint64_t* value, const std::string& help, bool is_size);
  void add_bool(const std::string& name, bool* value, const std::string& help);

  // Consumes recognised --name=value / --name value / --flag arguments and compacts argv.
  // --benchmark_* and anything after "--" are left for Google Benchmark. Any other "--x"
  // throws ArgError. Returns true when --help was given (usage() then says what to print).
  bool parse(int* argc, char** argv);
  std::string usage(const std::string& program) const;

 private:
  struct Flag {
    std::string name, help, default_text;
    std::function<void(const std::string&)> set;
    bool is_bool = false;
  };
  std::vector<Flag> flags_;
  const Flag* find(const std::string& name) const;
};

}  // namespace pk
