#pragma once
// The paper's Parallel Global Layout on the device side: for one GPU, the address through
// which it reaches every GPU's copy of a symmetric buffer. Kernels take it by value (a
// kernel parameter lives in the constant bank), so a peer access costs no global-memory
// table lookup: the per-access __ldg of a library's heap table is one of the overheads the
// paper measures.
#ifdef __CUDACC__
#define PK_HOST_DEVICE __host__ __device__
#else
#define PK_HOST_DEVICE  // plain C++ (host code, the CPU tests) sees the same struct
#endif

namespace pk {

constexpr int kMaxGpus = 8;

template <class T>
struct PeerTable {
  T* at[kMaxGpus];  // at[r]: rank r's copy as addressed from this GPU (nullptr: unreachable)
  int self;         // this GPU's rank in the group
  int size;         // GPUs in the group

  PK_HOST_DEVICE T* local() const { return at[self]; }
  PK_HOST_DEVICE T* operator[](int r) const { return at[r]; }
  // The same table with every address advanced by `elems` elements of T.
  PK_HOST_DEVICE PeerTable offset(long long elems) const {
    PeerTable t = *this;
    for (int r = 0; r < kMaxGpus; ++r)
      if (t.at[r]) t.at[r] += elems;
    return t;
  }
};

}  // namespace pk
