// The two instantiations of the GEMM kernel this study runs (few: CI compiles on 2 cores).
#include <stdexcept>
#include <vector>

#include "microbench/gemm/gemm_launch.cuh"
#include "microbench/gemm/pk_gemm.h"

namespace pk::gemm {

using CfgC1 = Config128x256<4, 1>;
using CfgC2 = Config128x256<4, 2>;
using OpsC1 = GemmOps<CfgC1>;
using OpsC2 = GemmOps<CfgC2>;

namespace {
template <class Cfg>
void check_mirror(const VariantInfo& v) {
  if (v.bm != Cfg::BM || v.bn != Cfg::BN || v.bk != Cfg::BK || v.stages != Cfg::STAGES ||
      v.cluster_m != Cfg::CLUSTER_M || v.threads != Cfg::THREADS || v.smem_bytes != Cfg::SMEM_BYTES ||
      v.default_group_m != Cfg::DEFAULT_GROUP_M)
    throw std::logic_error("gemm_problem.cpp's description of variant " + v.name + " disagrees with its kernel");
}
}  // namespace

struct PkGemm::Impl {
  std::vector<GemmParams> params;
};

PkGemm::PkGemm(const std::string& variant, const GpuInfo& gpu, int sms, int comm_blocks)
    : impl_(std::make_unique<Impl>()), info_(variant_info(variant)), sms_(sms), comm_blocks_(comm_blocks) {
  check_blocks(info_, sms, comm_blocks, gpu.sm_count);
  if (info_.name == "c1") {
    check_mirror<CfgC1>(info_);
    prepare_gemm_kernel<OpsC1>(blocks(), gpu);
  } else {
    check_mirror<CfgC2>(info_);
    prepare_gemm_kernel<OpsC2>(blocks(), gpu);
  }
}

PkGemm::~PkGemm() = default;

int PkGemm::add(const void* a, const void* b, void* c, const Shape& s, int group_m, int* smid_out,
                const Deadline& dl) {
  check_shape(info_, s);
  if (info_.cluster_m == 1)
    impl_->params.push_back(make_gemm_params<CfgC1>(a, b, c, s.m, s.n, s.k, sms_, group_m, smid_out, dl));
  else
    impl_->params.push_back(make_gemm_params<CfgC2>(a, b, c, s.m, s.n, s.k, sms_, group_m, smid_out, dl));
  return static_cast<int>(impl_->params.size()) - 1;
}

int PkGemm::group_m(int handle) const { return impl_->params.at(handle).group_m; }

void PkGemm::launch(int handle, cudaStream_t stream) const {
  const GemmParams& p = impl_->params.at(handle);
  if (info_.cluster_m == 1)
    launch_gemm<OpsC1>(p, blocks(), stream);
  else
    launch_gemm<OpsC2>(p, blocks(), stream);
}

}  // namespace pk::gemm
