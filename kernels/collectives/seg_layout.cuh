#pragma once
// The segment grid of push_segments.cuh as a plain struct (host code and the CPU tests
// build it), and the layouts of every collective that moves segments.
#include <cstdint>

namespace pk::coll {

struct SegLayout {
  uint64_t n1, n0, len;           // segment grid and run length (elements)
  uint64_t src1, src0, src_p;     // source offset: i1*src1 + i0*src0 + p*src_p
  uint64_t dst1, dst0, dst_self;  // destination offset: i1*dst1 + i0*dst0 + q*dst_self
  uint64_t pieces;                // pieces per segment: ceil(len / piece_elems)
  uint64_t piece_elems;
  int vec;                        // every offset and len are multiples of one 16-B vector
#ifdef __CUDACC__
  __host__ __device__
#endif
  uint64_t items() const { return n1 * n0 * pieces; }
};

// Fills pieces/piece_elems/vec from the rest.
inline SegLayout finish_layout(SegLayout L, uint64_t elem_bytes, uint64_t piece_bytes) {
  const uint64_t per_vec = 16 / elem_bytes;
  L.piece_elems = piece_bytes / elem_bytes;
  if (L.piece_elems == 0) L.piece_elems = 1;
  L.pieces = L.len == 0 ? 0 : (L.len + L.piece_elems - 1) / L.piece_elems;
  const uint64_t all = L.len | L.src1 | L.src0 | L.src_p | L.dst1 | L.dst0 | L.dst_self;
  L.vec = all % per_vec == 0 ? 1 : 0;
  return L;
}

}  // namespace pk::coll
