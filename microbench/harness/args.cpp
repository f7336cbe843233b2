#include "args.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <set>
#include <sstream>

#include "cuda_check.h"

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

void Flags::add(const std::string& name, std::string* v, const std::string& help) {
  flags_.push_back({name, help, *v, [v](const std::string& s) { *v = s; }});
}

void Flags::add(const std::string& name, int* v, const std::string& help) {
  flags_.push_back({name, help, std::to_string(*v), [v, name](const std::string& s) {
                      std::string t = trim(s);
                      bool neg = !t.empty() && t[0] == '-';
                      uint64_t x = parse_u64(neg ? t.substr(1) : t, "--" + name);
                      if (x > static_cast<uint64_t>(INT_MAX)) throw ArgError("--" + name + " too large");
                      *v = neg ? -static_cast<int>(x) : static_cast<int>(x);
                    }});
}

void Flags::add(const std::string& name, double* v, const std::string& help) {
  std::ostringstream d;
  d << *v;
  flags_.push_back({name, help, d.str(), [v, name](const std::string& s) {
                      char* end = nullptr;
                      double x = std::strtod(s.c_str(), &end);
                      if (s.empty() || *end != '\0') throw ArgError("bad value for --" + name + ": '" + s + "'");
                      *v = x;
                    }});
}

void Flags::add(const std::string& name, uint64_t* v, const std::string& help, bool is_size) {
  flags_.push_back({name, help, is_size ? format_size(*v) : std::to_string(*v),
                    [v, name, is_size](const std::string& s) {
                      *v = is_size ? parse_size(s) : parse_u64(trim(s), "--" + name);
                    }});
}

void Flags::add_bool(const std::string& name, bool* v, const std::string& help) {
  Flag f{name, help, *v ? "true" : "false", [v, name](const std::string& s) {
           if (s.empty() || s == "1" || s == "true" || s == "yes") *v = true;
           else if (s == "0" || s == "false" || s == "no") *v = false;
           else throw ArgError("bad value for --" + name + ": '" + s + "'");
         }};
  f.is_bool = true;
  flags_.push_back(f);
}

const Flags::Flag* Flags::find(const std::string& name) const {
  for (const auto& f : flags_)
    if (f.name == name) return &f;
  return nullptr;
}

bool Flags::parse(int* argc, char** argv) {
  bool help = false;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {  // everything after goes to Google Benchmark untouched
      for (int j = i + 1; j < *argc; ++j) argv[out++] = argv[j];
      break;
    }
    if (a.rfind("--benchmark_", 0) == 0 || a.rfind("--v=", 0) == 0) {
      argv[out++] = argv[i];
      continue;
    }
    if (a == "--help" || a == "-h") {
      help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) throw ArgError("unexpected argument '" + a + "'");
    std::string body = a.substr(2), name = body, value;
    bool has_value = false;
    if (auto eq = body.find('='); eq != std::string::npos) {
      name = body.substr(0, eq);
      value = body.substr(eq + 1);
      has_value = true;
    }
    const Flag* f = find(name);
    if (!f) throw ArgError("unknown flag --" + name + " (see --help)");
    if (!has_value && !f->is_bool) {
      if (i + 1 >= *argc) throw ArgError("flag --" + name + " needs a value");
      value = argv[++i];
    }
    f->set(value);
  }
  *argc = out;
  argv[out] = nullptr;
  return help;
}

std::string Flags::usage(const std::string& program) const {
  std::ostringstream os;
  os << "usage: " << program << " [flags] [--benchmark_* flags]\n\n";
  for (const auto& f : flags_) {
    os << "  --" << f.name << (f.is_bool ? "" : "=VALUE") << "\n      " << f.help
       << " (default: " << (f.default_text.empty() ? "\"\"" : f.default_text) << ")\n";
  }
  os << "\nGoogle Benchmark flags (--benchmark_filter, --benchmark_list_tests, --benchmark_out, ...) "
        "work as usual.\n";
  return os.str();
}

}  // namespace pk
