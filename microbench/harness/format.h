#pragma once
// Number and size formatting shared by the sweep tools' markdown and tables.
#include <cstdint>
#include <cstdio>
#include <string>

namespace pk {

inline std::string num(double v, int prec = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// 2048 -> "2 KiB", 232448 -> "227 KiB", 1000 -> "1000 B".
inline std::string size_text(uint64_t b) {
  const char* u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (i < 4 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++i;
  }
  return std::to_string(b) + " " + u[i];
}

inline std::string ns_text(double ns) {
  char b[64];
  if (ns >= 10000) std::snprintf(b, sizeof b, "%.1f us", ns / 1000);
  else std::snprintf(b, sizeof b, "%.0f ns", ns);
  return b;
}

inline std::string ratio_text(double r, int prec = 2) { return num(r, prec) + "x"; }

// Table cells: a time in us, a ratio; "-" where not measured (<= 0).
inline std::string us_cell(double us) { return us > 0 ? (us >= 10000 ? num(us, 0) : num(us, 2)) : "-"; }
inline std::string x_cell(double x) { return x > 0 ? num(x, 2) : "-"; }

// The power-of-two bucket holding `bytes`: [lo, 2 lo - 1].
inline uint64_t pow2_floor(uint64_t bytes) {
  uint64_t p = 1;
  while (bytes >= 2 && p <= bytes / 2) p *= 2;
  return bytes == 0 ? 0 : p;
}

}  // namespace pk
