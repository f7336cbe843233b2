#pragma once
// Command-line value grammar shared by the studies: sizes ("4K", "1G"), lists and ranges.
// The flags themselves are CLI11's (cli.h); these are its validators. Errors are ArgError.
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "microbench/harness/cuda_check.h"

namespace pk {

// "16", "4K", "4KiB", "2M", "1G": binary multiples. Rejects negatives, junk and overflow.
uint64_t parse_size(const std::string& s);
std::string format_size(uint64_t bytes);  // 16 -> "16B", 4096 -> "4KiB", 1<<30 -> "1GiB"

// Comma-separated items; an item may be a range "lo:hi" (doubling), "lo:hi:xF" (times F) or
// "lo:hi:+S" (plus S). Values are sizes (suffixes allowed). Sorted, duplicates dropped.
std::vector<uint64_t> parse_size_list(const std::string& s);
// Same grammar for plain integers; the word `all` stands for all_value.
std::vector<int> parse_int_list(const std::string& s, int all_value);
// A list flag of integers from lo to hi (parse_int_list's grammar; `all` reads 0, so it is out of
// range where lo >= 1): ArgError "<flag>: ..." for a bad item or a value out of range.
std::vector<int> parse_ints_within(const std::string& flag, const std::string& s, int lo, int hi);
// A count flag whose items are counts 1 to `most` (parse_int_list items) or the word `word`
// (0): ArgError "<flag>: X: 1 to <most><bound_tail>". In the order given, repeats kept.
std::vector<int> parse_counts_or(const std::string& flag, const std::string& s, const std::string& word, int most,
                                 const std::string& bound_tail);
// An SM-count flag (--sms): counts 1 to `most`, or "auto" (0).
inline std::vector<int> parse_sms_list(const std::string& s, int most, const std::string& bound_tail) {
  return parse_counts_or("--sms", s, "auto", most, bound_tail);
}
// Comma-separated names, each checked against `allowed`; `all` selects every allowed name.
std::vector<std::string> parse_name_list(const std::string& s, const std::vector<std::string>& allowed,
                                         const std::string& what);

// Tables of named entries (rows with a `name`): the entry called `name` (nullptr when none),
// every name in order, and the entry or ArgError "<unknown> '<name>' (<known><the names, comma
// separated>)".
template <class Entry>
const Entry* named(const std::vector<Entry>& table, const std::string& name) {
  for (const Entry& e : table)
    if (e.name == name) return &e;
  return nullptr;
}
template <class Entry>
std::vector<std::string> names_of(const std::vector<Entry>& table) {
  std::vector<std::string> v;
  for (const Entry& e : table) v.push_back(e.name);
  return v;
}
// A flag's help listing the entries of a table, one an indented line: "name: text(entry)".
template <class Entry, class Text>
std::string help_lines(const std::vector<Entry>& table, Text text) {
  std::string s;
  for (const Entry& e : table) s += "\n    " + e.name + ": " + text(e);
  return s;
}
// The --preset help of a table of presets (rows with a `name` and a `help`).
template <class Preset>
std::string preset_lines(const std::vector<Preset>& presets) {
  return help_lines(presets, [](const Preset& p) { return p.help; });
}
template <class Entry>
const Entry& find_named(const std::vector<Entry>& table, const std::string& name, const std::string& unknown,
                        const std::string& known = "") {
  if (const Entry* e = named(table, name)) return *e;
  std::string names;
  for (const std::string& n : names_of(table)) names += (names.empty() ? "" : ", ") + n;
  throw ArgError(unknown + " '" + name + "' (" + known + names + ")");
}

// GPU numbers (--gpus) are below this, and GPU counts (--gpu-counts) at most this.
constexpr int kGpuNumberLimit = 64;

// "A" or "A,B": one or two distinct GPU numbers (B defaults to the first other GPU).
// Syntax only; the GPU count is checked once it is known (check_gpu_pair).
std::pair<int, int> parse_gpu_pair(const std::string& s, const std::string& flag);
void check_gpu_pair(std::pair<int, int> gpus, int gpu_count, const std::string& flag);

}  // namespace pk
