// The ring KV pass's schedules, one line each, in run order (the registry; README.md says how to
// add one). PK_SEQPAR_IMPL(NAME, FAMILY, BASELINE, TAKES_SMS, COMPUTES, MOVES, SUMMARY): ring.cu
// builds each by name; the plain C++ side (seqpar_problem.cpp) reads the rest.
PK_SEQPAR_IMPL(compute_only, "pk", true, false, true, false,
               "the stand-in alone on every SM, N steps on the rank's own block (the compute time of a step)")
PK_SEQPAR_IMPL(copy_only, "pk", true, false, false, true,
               "the pull alone on every SM, N - 1 steps (the transfer time of a step)")
PK_SEQPAR_IMPL(sequential, "pk", true, false, true, true,
               "compute on every SM, then pull the next block on every SM, in stream order")
PK_SEQPAR_IMPL(nccl_side, "nccl", true, false, true, true,
               "xDiT's design: ncclSend/ncclRecv of the next block on a side stream while the stand-in runs on the main one")
PK_SEQPAR_IMPL(inter_sm, "pk", false, true, true, true,
               "inter-SM: `sms` communication blocks pull the next block into local HBM while the other SMs compute")
PK_SEQPAR_IMPL(intra_sm, "pk", false, false, true, true,
               "intra-SM: the stand-in's loads read each step's block from its owner over NVLink, nothing staged")
