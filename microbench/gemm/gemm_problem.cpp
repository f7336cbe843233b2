#include "microbench/gemm/gemm_problem.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "microbench/harness/args.h"
#include "microbench/harness/cuda_check.h"
#include "microbench/harness/metadata.h"

namespace pk::gemm {

std::string Shape::str() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

namespace {
int parse_dim(const std::string& s, const std::string& item) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw ArgError("--shapes: '" + item + "' is not MxNxK (positive integers, e.g. 8192x8192x8192)");
  errno = 0;
  const long v = std::strtol(s.c_str(), nullptr, 10);
  if (errno != 0 || v <= 0 || v > (1L << 20))
    throw ArgError("--shapes: '" + item + "': each dimension must be in 1 .. 1048576");
  return static_cast<int>(v);
}
}  // namespace

std::vector<Shape> parse_shapes(const std::string& list) {
  std::vector<Shape> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
    item = first == std::string::npos ? std::string() : item.substr(first, last - first + 1);
    if (item.empty()) continue;
    std::vector<std::string> parts;
    std::string cur;
    for (char ch : item) {
      if (ch == 'x' || ch == 'X') {
        parts.push_back(cur);
        cur.clear();
      } else {
        cur += ch;
      }
    }
    parts.push_back(cur);
    if (parts.size() != 3) throw ArgError("--shapes: '" + item + "' is not MxNxK (e.g. 8192x8192x8192)");
    Shape s{parse_dim(parts[0], item), parse_dim(parts[1], item), parse_dim(parts[2], item)};
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  if (out.empty()) throw ArgError("--shapes: no shape given");
  return out;
}

std::string VariantInfo::tile() const {
  return std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk);
}

std::string VariantInfo::description() const {
  std::ostringstream os;
  os << name << ": tile " << tile() << ", " << stages << " stages, cluster " << cluster_m << "x1"
     << (cluster_m > 1 ? " (B multicast)" : "") << ", " << threads << " threads, " << smem_bytes / 1024
     << " KiB shared memory, group_m " << default_group_m;
  return os.str();
}

const std::vector<VariantInfo>& variant_infos() {
  // Shared memory: stages * (A + B) + 2 consumers * 2 epilogue buffers of 64x64 bf16 +
  // barriers + 1 KiB alignment slack (the formula of Config128x256; the kernels' .cu
  // static_asserts that the two agree).
  auto smem = [](int stages) { return uint64_t(stages) * (128 * 64 * 2 + 256 * 64 * 2) + 4 * 64 * 64 * 2 + 16 * stages + 1024; };
  static const std::vector<VariantInfo> v = {
      {"c1", 128, 256, 64, 4, 1, 384, 16, smem(4)},
      {"c2", 128, 256, 64, 4, 2, 384, 8, smem(4)},
  };
  return v;
}

const VariantInfo& variant_info(const std::string& name) {
  return find_named(variant_infos(), name, "unknown GEMM variant", "known: ");
}

void check_shape(const VariantInfo& v, const Shape& s) {
  const int mm = v.bm * v.cluster_m;
  std::string why;
  if (s.m % mm) why += " M=" + std::to_string(s.m) + " is not a multiple of " + std::to_string(mm) +
                       (v.cluster_m > 1 ? " (tile rows x cluster)" : " (tile rows)") + ";";
  if (s.n % v.bn) why += " N=" + std::to_string(s.n) + " is not a multiple of " + std::to_string(v.bn) + ";";
  if (s.k % v.bk) why += " K=" + std::to_string(s.k) + " is not a multiple of " + std::to_string(v.bk) + ";";
  if (!why.empty()) {
    why.pop_back();
    throw ArgError("--shapes: " + s.str() + " does not fit variant " + v.name + " (tile " + v.tile() +
                   ", no partial tiles):" + why);
  }
}

void check_blocks(const VariantInfo& v, int compute_blocks, int comm_blocks, int sm_count) {
  if (compute_blocks < 1) throw ArgError("--sms: need at least one compute block, got " + std::to_string(compute_blocks));
  if (comm_blocks < 0) throw ArgError("communicator blocks must be >= 0");
  if (compute_blocks % v.cluster_m || comm_blocks % v.cluster_m)
    throw ArgError("--sms: variant " + v.name + " runs clusters of " + std::to_string(v.cluster_m) +
                   " blocks: " + std::to_string(compute_blocks) + " compute + " + std::to_string(comm_blocks) +
                   " communicator blocks is not a multiple");
  if (sm_count > 0 && compute_blocks + comm_blocks > sm_count)
    throw ArgError("--sms: " + std::to_string(compute_blocks + comm_blocks) + " blocks (one per SM) but the GPU has " +
                   std::to_string(sm_count) + " SMs");
}

std::string Point::name() const {
  return "gemm/" + impl + (variant.empty() ? "" : ":" + variant) + "/" + shape.str() + "/sms:" + std::to_string(sms);
}

std::vector<Point> build_points(const std::vector<Shape>& shapes, const std::vector<int>& sms,
                                const std::vector<std::string>& impls, const std::vector<std::string>& variants) {
  const bool cublas = std::find(impls.begin(), impls.end(), kImplCublas) != impls.end();
  const bool pk = std::find(impls.begin(), impls.end(), kImplPk) != impls.end();
  std::vector<Point> out;
  for (const Shape& s : shapes)
    for (int n : sms) {
      if (cublas) out.push_back(Point{kImplCublas, "", s, n});
      if (pk)
        for (const auto& v : variants) out.push_back(Point{kImplPk, v, s, n});
    }
  return out;
}

const std::vector<std::string>& gemm_columns() {
  static const std::vector<std::string> c = [] {
    std::vector<std::string> v = {"study",         "impl",           "variant",          "m",
                                  "n",             "k",              "sms",              "tile",
                                  "stages",        "cluster_m",      "group_m",          "algo",
                                  "groups",        "iters_per_sample", "samples",        "time_us_median",
                                  "time_us_min",   "time_us_max",    "cv",               "tflops",
                                  "tflops_best",   "ratio_to_cublas", "rel_fro_err",     "max_rel_err",
                                  "wrong",         "verified",       "smids_distinct",   "sm_clock_mhz_start",
                                  "sm_clock_mhz_end", "sm_clock_mhz_max", "status",       "error"};
    for (const auto& m : metadata_columns()) v.push_back(m);
    return v;
  }();
  return c;
}

}  // namespace pk::gemm
