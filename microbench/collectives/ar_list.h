// Every all-reduce algorithm of ours, one line each, in the order of the study's rows. Each
// line PK_ALL_REDUCE(NAME) registers the algorithm named NAME, which its file ar_*.cu
// defines as `const ArAlgorithm& ar_NAME()` (ar_algorithm.h: PK_DEFINE_ALL_REDUCE).
PK_ALL_REDUCE(one_shot)
PK_ALL_REDUCE(two_shot_push)
PK_ALL_REDUCE(two_shot_pull)
PK_ALL_REDUCE(two_shot_push_rounds)
PK_ALL_REDUCE(ll)
PK_ALL_REDUCE(two_shot_tma)
PK_ALL_REDUCE(two_shot_push_handshake)
PK_ALL_REDUCE(two_shot_push_staged)
PK_ALL_REDUCE(two_shot_push_handshake_staged)
PK_ALL_REDUCE(one_shot_push)
