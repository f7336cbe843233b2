#pragma once
// Expert parallelism: what every dispatch and combine kernel of this folder shares, visible
// to plain C++ too (the host sizes buffers with it, the CPU tests check it).
//
// The pattern. Rank s holds T tokens x[s][t] of H bf16 and, for each, TopK experts out of E
// (topk[t][k], global expert ids) with router weights w[t][k]; expert e lives on rank
// e / El (El = E / N local experts). Dispatch moves each token ONCE to each rank holding one
// of its experts (deduplicated per rank, as DeepEP's normal mode does: a token with three
// experts on one rank crosses the link once) and the receiver fans it out into its
// per-expert receive layout: expert j's rows are [base[j], base[j] + count[j]) of the receive
// buffer, base[j] a multiple of kRowAlign (the GEMM's row tile), one row per (token, local
// expert). The order of the rows inside an expert is the implementation's (atomics): every
// row says where it came from (row_src = source rank << 24 | source token), and the handle
// (one HandleEntry per received (source, slot)) says where the token's rows went and with
// which router weights. Combine sends, per (token, rank) again once, the rank's weighted
// partial sum of its local experts' outputs sum_j w_j * y[row_j] (fp32, rounded to bf16)
// back to the source, which sums the partials of the ranks in fp32 and rounds once.
// Non-template kernels in these headers are `static`: each translation unit that includes one
// gets its own copy instead of a duplicate symbol.
#include <cstdint>

#if defined(__CUDACC__)
#define PK_EP_HD __host__ __device__ __forceinline__
#else
#define PK_EP_HD inline
#endif

namespace pk::ep {

inline constexpr int kMaxTopK = 8;        // experts per token (DeepSeek-V3 and most MoEs: 8 or fewer)
inline constexpr int kMaxRanks = 8;       // = kMaxGpus
inline constexpr int kRowAlign = 128;     // expert regions start on the GEMM's row tile (BM)
inline constexpr int kTileCols = 256;     // the grouped GEMM's column tile (BN): H_expert is whole tiles
inline constexpr int kMaxTokenBits = 24;  // row_src = src << 24 | token
inline constexpr int kMaxTokens = 1 << kMaxTokenBits;
inline constexpr int kMaxLocalExperts = 65535;  // local expert ids travel as uint16
inline constexpr int kMaxExperts = 2048;        // the count kernels hold E counters in shared memory
inline constexpr int kEpMaxBlocks = 160;        // >= the SMs of any GPU the suite targets

// What travels with a token to one rank besides its H values: its index at the source and
// the local experts (ids on that rank, ascending) with their router weights. 64 B.
struct TokenHeader {
  int32_t t;
  int32_t n;                  // local experts of the token on the receiving rank (0: none)
  uint16_t j[kMaxTopK];       // local expert ids
  float w[kMaxTopK];          // router weights
  int32_t pad[2];
};
static_assert(sizeof(TokenHeader) == 64, "a header is four 16-B vectors");

// Where a received token went: its source index, its rows in the per-expert layout and its
// router weights. The combine reads it; one per (source rank, slot).
struct HandleEntry {
  int32_t t;
  int32_t n;                  // rows (0 or less: nothing received in this slot)
  int32_t row[kMaxTopK];
  float w[kMaxTopK];
};

// Row tiles of `count` rows.
PK_EP_HD int row_tiles(int count) { return (count + kRowAlign - 1) / kRowAlign; }
PK_EP_HD int64_t align_rows(int64_t rows) { return (rows + kRowAlign - 1) / kRowAlign * kRowAlign; }
PK_EP_HD int32_t pack_src(int s, int t) { return static_cast<int32_t>((static_cast<uint32_t>(s) << kMaxTokenBits) | static_cast<uint32_t>(t)); }
PK_EP_HD int src_rank(int32_t v) { return static_cast<int>(static_cast<uint32_t>(v) >> kMaxTokenBits); }
PK_EP_HD int src_token(int32_t v) { return static_cast<int>(static_cast<uint32_t>(v) & (kMaxTokens - 1)); }

// The receive layout of one rank, in device memory (EpLayout points into one int array):
//   count[El], base[El]        the per-expert regions
//   slots_in[N]                handle slots received from each source (the handle is
//                              [N][slot_capacity] HandleEntry)
//   tile_prefix[El + 1]        grouped GEMM: tiles of experts before j (row tiles x tiles_n)
//   tiles_total                tile_prefix[El]
struct LayoutDims {
  int experts;  // El
  int ranks;    // N
  PK_EP_HD int64_t count_at() const { return 0; }
  PK_EP_HD int64_t base_at() const { return experts; }
  PK_EP_HD int64_t slots_at() const { return 2 * int64_t(experts); }
  PK_EP_HD int64_t tile_prefix_at() const { return slots_at() + ranks; }
  PK_EP_HD int64_t tiles_total_at() const { return tile_prefix_at() + experts; }
  PK_EP_HD int64_t ints() const { return tile_prefix_at() + experts + 1; }
};

struct EpLayout {
  int* count;
  int* base;
  int* slots_in;
  int* tile_prefix;  // El + 1 entries; the last is the total
  PK_EP_HD static EpLayout at(int* p, LayoutDims d) {
    return EpLayout{p + d.count_at(), p + d.base_at(), p + d.slots_at(), p + d.tile_prefix_at()};
  }
};

// The grouped GEMM's tile order: expert by expert (experts with no rows have no tiles), each
// expert column-major over its row tiles (consecutive tiles share the expert's weight panel
// of one tile column). Tile idx -> expert j, row tile i, column tile n.
struct GroupedTile {
  int expert, row_tile, col_tile;
};
PK_EP_HD GroupedTile grouped_tile_of(int idx, const int* tile_prefix, const int* count, int experts) {
  int lo = 0, hi = experts;  // the last expert whose prefix is <= idx (it has tiles: prefix[j + 1] > idx)
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (tile_prefix[mid] <= idx) lo = mid;
    else hi = mid - 1;
  }
  const int local = idx - tile_prefix[lo];
  const int mt = row_tiles(count[lo]);
  return GroupedTile{lo, local % mt, local / mt};
}

// Rows of row tile i of an expert with `count` rows (the last tile may be partial).
PK_EP_HD int rows_in_tile(int count, int i) {
  const int left = count - i * kRowAlign;
  return left < kRowAlign ? left : kRowAlign;
}

// The low-latency protocol's landing slot for one (source, token): LL lines of 16 B, each two
// 8-B elements {4 B data, 4 B flag = the launch's epoch}: kHeaderLines lines carry the
// TokenHeader (8 B of it per line), then H * 2 / 8 lines the token's values.
struct LlSlot {
  static constexpr int64_t kLineBytes = 16;
  static constexpr int64_t kPayloadPerLine = 8;
  static constexpr int64_t kHeaderLines = sizeof(TokenHeader) / kPayloadPerLine;
  PK_EP_HD static int64_t data_lines(int hidden) { return int64_t(hidden) * 2 / kPayloadPerLine; }
  PK_EP_HD static int64_t lines(int hidden) { return kHeaderLines + data_lines(hidden); }
  PK_EP_HD static int64_t bytes(int hidden) { return lines(hidden) * kLineBytes; }
};

}  // namespace pk::ep
