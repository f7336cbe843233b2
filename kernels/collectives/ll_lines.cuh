#pragma once
// The low-latency protocol's line geometry, shared by the LL all-reduce (allreduce_ll.cuh)
// and the LL all-gather / reduce-scatter / all-to-all (segments_ll.cuh); plain C++ sees it
// too (the host sizes scratch and grids with it, the CPU tests check it).
// A line is 16 B: two 8-B {data32, flag32} elements, so 8 B of payload per line.
#include "kernels/collectives/coll_reference.cuh"

namespace pk::coll {

struct LlLines {
  static constexpr uint64_t kLineBytes = 16;
  static constexpr uint64_t kPayloadPerLine = 8;
  // Lines of `count` elements of `elem_bytes` (a partial last line when not a multiple of 8 B).
  PK_COLL_HD static constexpr uint64_t lines(uint64_t count, uint64_t elem_bytes) {
    return (count * elem_bytes + kPayloadPerLine - 1) / kPayloadPerLine;
  }
  // Every line whole: one 8-B access moves a line's payload.
  PK_COLL_HD static constexpr bool whole_lines(uint64_t count, uint64_t elem_bytes) {
    return count * elem_bytes % kPayloadPerLine == 0;
  }
  // Landing lines on one rank: 2 epoch parities x n sources x the lines of `count` elements.
  PK_COLL_HD static constexpr uint64_t scratch_bytes(uint64_t count, uint64_t elem_bytes, int n) {
    return 2ull * static_cast<uint64_t>(n) * lines(count, elem_bytes) * kLineBytes;
  }
};

}  // namespace pk::coll
