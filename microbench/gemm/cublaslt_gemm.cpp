#include "cublaslt_gemm.h"

#include <cublasLt.h>

#include <string>

#include "../harness/cuda_check.h"

namespace pk::gemm {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw CudaError(std::string("cuBLASLt: ") + what + " failed with status " + std::to_string(int(s)));
}

constexpr size_t kWorkspaceBytes = 32ull << 20;

}  // namespace

// Row-major C[M,N] = A[M,K] * B[N,K]^T is column-major C^T[N,M] = B * A^T: cuBLASLt's
// A operand is our B (stored column-major as K x N, transposed: "T"), its B operand is our
// A (column-major K x M, not transposed: "N"). The TN layout is cuBLAS's fastest.
struct CublasLtGemm::Impl {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  int m = 0, n = 0;

  ~Impl() {
    if (workspace) cudaFree(workspace);
    if (lc) cublasLtMatrixLayoutDestroy(lc);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (desc) cublasLtMatmulDescDestroy(desc);
    if (handle) cublasLtDestroy(handle);
  }
};

CublasLtGemm::CublasLtGemm(int m, int n, int k, int sm_count_target) : impl_(std::make_unique<Impl>()) {
  Impl& I = *impl_;
  I.m = m;
  I.n = n;
  check(cublasLtCreate(&I.handle), "cublasLtCreate");
  check(cublasLtMatmulDescCreate(&I.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(I.desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "set TRANSA");
  check(cublasLtMatmulDescSetAttribute(I.desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "set TRANSB");
  if (sm_count_target > 0) {
    const int32_t sms = sm_count_target;
    check(cublasLtMatmulDescSetAttribute(I.desc, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sms, sizeof sms),
          "set SM_COUNT_TARGET");
  }
  check(cublasLtMatrixLayoutCreate(&I.la, CUDA_R_16BF, uint64_t(k), uint64_t(n), int64_t(k)), "layout A");
  check(cublasLtMatrixLayoutCreate(&I.lb, CUDA_R_16BF, uint64_t(k), uint64_t(m), int64_t(k)), "layout B");
  check(cublasLtMatrixLayoutCreate(&I.lc, CUDA_R_16BF, uint64_t(n), uint64_t(m), int64_t(n)), "layout C");

  PK_CUDA_CHECK(cudaMalloc(&I.workspace, kWorkspaceBytes));
  I.workspace_bytes = kWorkspaceBytes;
  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference create");
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &I.workspace_bytes,
                                             sizeof I.workspace_bytes),
        "preference workspace");
  cublasLtMatmulHeuristicResult_t res{};
  int found = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(I.handle, I.desc, I.la, I.lb, I.lc, I.lc, pref, 1, &res, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check(st, "cublasLtMatmulAlgoGetHeuristic");
  if (found < 1 || res.state != CUBLAS_STATUS_SUCCESS) throw CudaError("cuBLASLt: no algorithm for this GEMM");
  I.algo = res.algo;

  auto cfg = [&](cublasLtMatmulAlgoConfigAttributes_t a) {
    uint32_t v = 0;
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&I.algo, a, &v, sizeof v, &written) != CUBLAS_STATUS_SUCCESS) return -1;
    return int(v);
  };
  algo_desc_ = "id=" + std::to_string(cfg(CUBLASLT_ALGO_CONFIG_ID)) + " tile=" +
               std::to_string(cfg(CUBLASLT_ALGO_CONFIG_TILE_ID)) + " stages=" +
               std::to_string(cfg(CUBLASLT_ALGO_CONFIG_STAGES_ID)) + " cluster=" +
               std::to_string(cfg(CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)) + " sm_target=" +
               (sm_count_target > 0 ? std::to_string(sm_count_target) : std::string("all"));
}

CublasLtGemm::~CublasLtGemm() = default;

void CublasLtGemm::run(const void* a, const void* b, void* c, cudaStream_t stream) const {
  const Impl& I = *impl_;
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasLtMatmul(I.handle, I.desc, &alpha, b, I.la, a, I.lb, &beta, c, I.lc, c, I.lc, &I.algo, I.workspace,
                       I.workspace_bytes, stream),
        "cublasLtMatmul");
}

}  // namespace pk::gemm
