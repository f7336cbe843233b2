#pragma once
// Plain C++ side of the GEMM study: shapes, the kernel variants (their tile configuration,
// mirrored from kernels/gemm/gemm_kernel.cuh and checked against it at compile time), and
// the checks that refuse a problem a variant cannot run, with a message that says why.
// Everything here throws pk::ArgError and needs no GPU, so the CPU tests cover it.
#include <cstdint>
#include <string>
#include <vector>

namespace pk::gemm {

struct Shape {
  int m = 0, n = 0, k = 0;
  std::string str() const;  // "MxNxK"
  double flops() const { return 2.0 * m * n * double(k); }
  bool operator==(const Shape&) const = default;
};

// "8192x8192x8192,4096x2048x64": comma list of MxNxK, each positive; duplicates dropped,
// order kept. Throws ArgError naming the bad item.
std::vector<Shape> parse_shapes(const std::string& list);

struct VariantInfo {
  std::string name;     // "c1" (one CTA per cluster), "c2" (clusters of 2 sharing B)
  int bm, bn, bk;       // CTA tile
  int stages;
  int cluster_m;        // CTAs per cluster along M
  int threads;          // per block
  int default_group_m;  // grouped order band, in cluster-tile rows
  uint64_t smem_bytes;  // dynamic shared memory per block
  std::string tile() const;         // "128x256x64"
  std::string description() const;  // one line for --help
};

const std::vector<VariantInfo>& variant_infos();
const VariantInfo& variant_info(const std::string& name);  // ArgError: unknown variant

// Dividing M by bm * cluster_m, N by bn, K by bk exactly is what the kernel handles (no
// partial tiles); TMA needs 16-B aligned rows, which those multiples give.
void check_shape(const VariantInfo& v, const Shape& s);
// compute_blocks >= 1, a multiple of cluster_m, and compute + comm blocks <= sm_count (one
// block per SM, all resident: a persistent grid). sm_count <= 0 skips the last check.
void check_blocks(const VariantInfo& v, int compute_blocks, int comm_blocks, int sm_count);

// One measured point of pkbench_gemm: an implementation ("cublaslt" or "pkbench") with its
// variant (pkbench only), a shape, and the SM count it runs on (cuBLASLt: its SM target).
struct Point {
  std::string impl;
  std::string variant;  // "" for cublaslt
  Shape shape;
  int sms = 0;
  std::string name() const;  // "gemm/pkbench:c1/8192x8192x8192/sms:132"
};

inline constexpr const char* kImplCublas = "cublaslt";
inline constexpr const char* kImplPk = "pkbench";

// For each shape, for each SM count: cuBLASLt first (ratios need it), then each variant.
std::vector<Point> build_points(const std::vector<Shape>& shapes, const std::vector<int>& sms,
                                const std::vector<std::string>& impls, const std::vector<std::string>& variants);

// The tidy CSV schema of pkbench_gemm (metadata columns last).
const std::vector<std::string>& gemm_columns();

}  // namespace pk::gemm
