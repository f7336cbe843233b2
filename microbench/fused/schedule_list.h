// Every schedule of the fused study, one line each. A line PK_FUSED_SCHEDULE(NAME) registers
// the schedule NAME whose file schedules/NAME.cu declares it and defines its factory
// (schedule.h, README.md). Rows run components first, then baselines, then the fused
// kernels, each kind in the order of these lines. CMakeLists.txt reads the names from here.
PK_FUSED_SCHEDULE(gemm_pk)
PK_FUSED_SCHEDULE(gemm_cublas)
PK_FUSED_SCHEDULE(coll_nccl)
PK_FUSED_SCHEDULE(coll_pk)
PK_FUSED_SCHEDULE(cublas_nccl)
PK_FUSED_SCHEDULE(pk_then_coll)
PK_FUSED_SCHEDULE(cublas_then_pk_coll)
PK_FUSED_SCHEDULE(cublas_nccl_overlap)
PK_FUSED_SCHEDULE(ce_overlap)
PK_FUSED_SCHEDULE(intra_sm)
PK_FUSED_SCHEDULE(inter_sm)
PK_FUSED_SCHEDULE(inter_sm_local_first)
