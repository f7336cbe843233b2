#pragma once
// One collective = one declaration, plain C++ (the CPU tests build it): what it computes and
// how big it is, declared once; coll_problem.cpp looks every question about a collective up
// here, so nothing switches over collectives. A collective is its file collective_<name>.cpp
// (this class, and `const Collective& collective_<name>()` by PK_DECLARE_COLLECTIVE), the
// CUDA file(s) of our implementations of it, and its line in coll_list.h (README.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/collectives/coll_reference.cuh"
#include "kernels/collectives/seg_layout.cuh"

namespace pk::coll {

struct Problem;
struct TensorDims;

// NCCL's collective functions: an NCCL baseline calls the one its collective names (root:
// rank 0, nccl-tests' default).
enum class NcclFunc { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce };
const char* nccl_func_name(NcclFunc f);  // AllReduce, AllGather, ReduceScatter, AlltoAll, Broadcast, Reduce

// The reshape copies around NCCL for a layout NCCL does not have: `before` runs on the input
// into NCCL's send buffer, `after` on NCCL's receive buffer into the output; a copy a layout
// does not need has n1 == 0.
struct ReshapePlan {
  SegLayout before{}, after{};
  uint64_t nccl_send_elems = 0, nccl_recv_elems = 0, nccl_count = 0;
};

class Collective {
 public:
  virtual ~Collective() = default;
  // Its layout code (coll_reference.cuh: LayoutCode; Problem::layout, Impl::supports).
  virtual int layout() const = 0;
  // Sized by --tensor-sizes / --tensor-counts (the tensor-dimension collectives) rather than
  // --sizes / --counts.
  virtual bool tensor() const { return false; }
  // p's counts (count: NCCL's count argument; in_elems, out_elems per rank; bytes: nccl-tests'
  // "size"; the tensor dimensions) from one rank's block of `block` (elements, or rows / S per
  // rank for the tensor ones). p.n, p.dtype are set.
  virtual void shape(Problem& p, uint64_t block, const TensorDims& d) const = 0;
  // Bytes of one block step (sizes are multiples of it), and the words that say so after
  // "does not split into whole <dtype> elements".
  virtual uint64_t size_unit(uint64_t elem_bytes, int n, const TensorDims& d) const = 0;
  virtual std::string unit_words(int n, const TensorDims& d) const = 0;
  // "" when the tensor dimensions fit n ranks, else the refusal (ArgError naming the flag).
  virtual std::string dims_refusal(int /*n*/, const TensorDims&) const { return ""; }
  // nccl-tests' bus-bandwidth factor on n >= 1 ranks.
  virtual double busbw_factor(int n) const = 0;
  virtual NcclFunc nccl_func() const = 0;
  // The fp64 reference of rank `rank`'s output, as the checker reads it (coll_reference.cuh).
  virtual RefMap ref_map(const Problem& p, int rank) const = 0;
  // The direct push layout (push_segments.cuh) before finish_layout; none: `push` does not
  // serve it.
  virtual std::optional<SegLayout> direct_layout(const Problem&) const { return std::nullopt; }
  // The copies NCCL needs around its function (none by default: its buffers are the user's).
  virtual ReshapePlan nccl_reshape(const Problem& p, uint64_t piece_bytes) const;
};

// A collective of one vector of `block` elements in and out per rank; `bytes` is the vector.
class VectorCollective : public Collective {
 public:
  void shape(Problem& p, uint64_t block, const TensorDims&) const override;
  uint64_t size_unit(uint64_t elem_bytes, int, const TensorDims&) const override { return elem_bytes; }
  std::string unit_words(int, const TensorDims&) const override { return ""; }
};

// A gather's counts (gather) or a scatter's: one rank's block of `shard` elements is its input
// (its output), n blocks the other side; bytes are the n blocks.
void shape_gathered(Problem& p, uint64_t shard, bool gather);

// Defines `const Collective& collective_NAME()`, the function coll_list.h's line names.
#define PK_DECLARE_COLLECTIVE(NAME, CLASS) \
  const Collective& collective_##NAME() {  \
    static const CLASS c;                  \
    return c;                              \
  }

// Every listed collective with its name, in coll_list.h's order.
struct CollectiveEntry {
  std::string name;
  const Collective* decl;
};
const std::vector<CollectiveEntry>& collectives();
// The listed collective of that name; ArgError naming --collectives for any other.
const Collective& collective_named(const std::string& name);
// The listed collective of that layout code (std::logic_error for any other: codes come from
// the declarations).
const Collective& collective_of_layout(int layout);

}  // namespace pk::coll
