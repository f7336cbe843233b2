#include "microbench/harness/args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <set>
#include <sstream>

#include "microbench/harness/cuda_check.h"

namespace pk {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

uint64_t parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    throw ArgError("bad " + what + " '" + s + "': expected a non-negative number");
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') throw ArgError("bad " + what + " '" + s + "'");
  return v;
}

template <class T, class Parse>
std::vector<T> parse_list(const std::string& s, Parse parse_one, const std::string& what) {
  std::set<T> out;
  if (trim(s).empty()) throw ArgError("empty " + what + " list");
  for (const std::string& raw : split(s, ',')) {
    const std::string item = trim(raw);
    auto parts = split(item, ':');
    if (parts.size() == 1) {
      out.insert(parse_one(item));
      continue;
    }
    if (parts.size() > 3) throw ArgError("bad " + what + " range '" + item + "'");
    T lo = parse_one(parts[0]), hi = parse_one(parts[1]);
    if (lo > hi) throw ArgError(what + " range '" + item + "' has lo > hi");
    bool mult = true;
    uint64_t step = 2;
    if (parts.size() == 3) {
      const std::string st = trim(parts[2]);
      if (st.size() < 2 || (st[0] != 'x' && st[0] != '+'))
        throw ArgError("bad step in " + what + " range '" + item + "': use xF or +S");
      mult = st[0] == 'x';
      step = parse_u64(st.substr(1), what + " step");
      if ((mult && step < 2) || (!mult && step < 1))
        throw ArgError("step in " + what + " range '" + item + "' does not advance");
    }
    if (mult && lo == 0) throw ArgError(what + " range '" + item + "' multiplies from 0");
    for (uint64_t v = static_cast<uint64_t>(lo); v <= static_cast<uint64_t>(hi);) {
      out.insert(static_cast<T>(v));
      uint64_t next = mult ? v * step : v + step;
      if (next <= v) break;
      v = next;
    }
  }
  return std::vector<T>(out.begin(), out.end());
}

}  // namespace

uint64_t parse_size(const std::string& raw) {
  std::string s = trim(raw);
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) throw ArgError("bad size '" + raw + "': expected e.g. 16, 4K, 1G");
  uint64_t v = parse_u64(s.substr(0, i), "size");
  std::string suf = s.substr(i);
  for (auto& c : suf) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (suf.empty() || suf == "B") shift = 0;
  else if (suf == "K" || suf == "KB" || suf == "KIB") shift = 10;
  else if (suf == "M" || suf == "MB" || suf == "MIB") shift = 20;
  else if (suf == "G" || suf == "GB" || suf == "GIB") shift = 30;
  else if (suf == "T" || suf == "TB" || suf == "TIB") shift = 40;
  else throw ArgError("bad size suffix in '" + raw + "' (use K, M, G: binary multiples)");
  if (shift && v > (UINT64_MAX >> shift)) throw ArgError("size '" + raw + "' overflows");
  return v << shift;
}

std::string format_size(uint64_t b) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + units[u];
}

std::vector<uint64_t> parse_size_list(const std::string& s) {
  return parse_list<uint64_t>(s, [](const std::string& x) { return parse_size(x); }, "size");
}

std::vector<int> parse_int_list(const std::string& s, int all_value) {
  return parse_list<int>(
      s,
      [&](const std::string& x) {
        std::string t = trim(x);
        if (t == "all") return all_value;
        uint64_t v = parse_u64(t, "integer");
        if (v > static_cast<uint64_t>(INT_MAX)) throw ArgError("integer '" + t + "' too large");
        return static_cast<int>(v);
      },
      "integer");
}

std::vector<int> parse_ints_within(const std::string& flag, const std::string& s, int lo, int hi) {
  std::vector<int> v;
  try {
    v = parse_int_list(s, 0);
  } catch (const ArgError& e) {
    throw ArgError(flag + ": " + std::string(e.what()));
  }
  if (v.empty()) throw ArgError(flag + ": an empty list");
  for (int x : v)
    if (x < lo || x > hi) throw ArgError(flag + ": " + std::to_string(x) + ": " + std::to_string(lo) + " to " + std::to_string(hi));
  return v;
}

std::vector<int> parse_counts_or(const std::string& flag, const std::string& s, const std::string& word, int most,
                                 const std::string& bound_tail) {
  std::vector<int> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = s.find(',', at);
    const std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (item == word) {
      out.push_back(0);
    } else {
      std::vector<int> v;
      try {
        v = parse_int_list(item, 0);
      } catch (const ArgError& e) {
        throw ArgError(flag + ": " + std::string(e.what()));
      }
      for (int x : v) {
        if (x < 1 || x > most) throw ArgError(flag + ": " + std::to_string(x) + ": 1 to " + std::to_string(most) + bound_tail);
        out.push_back(x);
      }
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

std::vector<std::string> parse_name_list(const std::string& s, const std::vector<std::string>& allowed,
                                         const std::string& what) {
  std::vector<std::string> out;
  for (const std::string& raw : split(s, ',')) {
    std::string n = trim(raw);
    if (n == "all") {
      for (const auto& a : allowed)
        if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
      continue;
    }
    if (std::find(allowed.begin(), allowed.end(), n) == allowed.end()) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw ArgError("unknown " + what + " '" + n + "' (known: " + list + ")");
    }
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::pair<int, int> parse_gpu_pair(const std::string& s, const std::string& flag) {
  const auto parts = split(s, ',');
  auto one = [&](const std::string& x) {
    const std::string t = trim(x);
    if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos)
      throw ArgError(flag + ": '" + s + "' is not A or A,B (GPU numbers)");
    const uint64_t v = parse_u64(t, flag);
    if (v >= static_cast<uint64_t>(kGpuNumberLimit)) throw ArgError(flag + ": GPU " + t + " is out of range");
    return static_cast<int>(v);
  };
  if (parts.empty() || parts.size() > 2) throw ArgError(flag + " takes one or two GPU numbers: A or A,B");
  const int a = one(parts[0]);
  const int b = parts.size() == 2 ? one(parts[1]) : (a == 0 ? 1 : 0);
  if (a == b) throw ArgError(flag + "=" + s + " names GPU " + std::to_string(a) + " twice: give two different GPUs");
  return {a, b};
}

void check_gpu_pair(std::pair<int, int> g, int n, const std::string& flag) {
  for (int x : {g.first, g.second})
    if (x >= n)
      throw ArgError(flag + ": GPU " + std::to_string(x) + " does not exist (" + std::to_string(n) + " GPU" +
                     (n == 1 ? "" : "s") + " in this run, numbered 0.." + std::to_string(n - 1) + ")");
}

}  // namespace pk
