// The study's implementations, one line each, in run order (the registry; README.md says how
// to add one). PK_EP_IMPL(NAME, OP, FAMILY, BASELINE, TAKES_SMS, MAKE, SUMMARY): the CUDA file
// impl_<...>.cu defines `std::unique_ptr<Impl> MAKE(Context&, const Point&)` (ep_impl.h); the
// plain C++ side (ep_problem.cpp) reads the rest.
PK_EP_IMPL(ll, dispatch_combine, "pk", false, true, make_ll,
           "low latency: flags inside the data (LL lines), no layout exchange, every (source, token) slot polled")
PK_EP_IMPL(ht, dispatch_combine, "pk", false, true, make_ht,
           "high throughput: count exchange, then register push of each token once per rank, fanned out by the receiver")
PK_EP_IMPL(nccl, dispatch_combine, "nccl", true, false, make_nccl,
           "a framework without DeepEP: counts by ncclAllToAll, tokens by ncclSend/ncclRecv per peer, local permutes")
PK_EP_IMPL(gemm_only, dispatch_gemm, "pk", false, false, make_gemm_only,
           "the grouped GEMM alone on a dispatched layout (H x H_expert per expert, every SM)")
PK_EP_IMPL(ht_then_gemm, dispatch_gemm, "pk", true, true, make_ht_then_gemm,
           "ht dispatch, then the grouped GEMM on every SM")
PK_EP_IMPL(nccl_then_gemm, dispatch_gemm, "nccl", true, false, make_nccl_then_gemm,
           "the NCCL dispatch, then the grouped GEMM on every SM")
PK_EP_IMPL(overlap, dispatch_gemm, "pk", false, true, make_overlap,
           "inter-SM overlap: communication SMs dispatch, the GEMM's producers wait on per-row-tile arrival flags")
