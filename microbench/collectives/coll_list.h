// Every collective of the study, one line each, in report order (the default --collectives
// and the order of the rows). PK_COLLECTIVE(NAME, IMPLS) registers the collective NAME, which
// a file collective_*.cpp declares as `const Collective& collective_NAME()` (plain C++:
// collective.h), and IMPLS, the function of a CUDA file that returns the implementations of
// ours this line brings (`ImplList IMPLS()`, coll_harness.h), or no_impls where implementations
// brought by an earlier line serve it too (each says which collectives it serves:
// Impl::supports). The baselines serve every collective NCCL has a function for.
PK_COLLECTIVE(all_reduce, all_reduce_impls)
PK_COLLECTIVE(all_gather, segment_impls)
PK_COLLECTIVE(reduce_scatter, no_impls)
PK_COLLECTIVE(all_to_all, no_impls)
PK_COLLECTIVE(all_gather_cols, no_impls)
PK_COLLECTIVE(reduce_scatter_cols, no_impls)
PK_COLLECTIVE(all_to_all_4d, no_impls)
PK_COLLECTIVE(broadcast, broadcast_impls)
