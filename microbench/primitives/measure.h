#pragma once
// The measurement of each operation, written once and shared by every style: buffers are
// filled and poisoned, the style's kernel is launched (its launcher is the only per-style
// part), the result is timed, verified and turned into a row. All collective.
#include <functional>

#include "kernels/primitives/element_put.cuh"
#include "microbench/primitives/primitives.h"

namespace pk::prim {

// Element-wise put. `src` is on GPU a (source of every style), `dst_on_b` the destination
// as GPU b addresses it (for the check). launch(stream, grid, block, shape, timed) issues
// the style's element_put_kernel; timed kernels write c.cycles(a) / c.record(a).
using PutLaunch = std::function<void(cudaStream_t, int grid, int block, const PutShape&, bool timed)>;
// The pattern seed of every element put (register-valued puts make the same values).
inline constexpr uint64_t kPutSeed = 0x5EED0001;
Row measure_put(Context& c, const Spec& s, void* src_on_a, void* dst_on_b, const PutLaunch& launch);
// Buffer bytes measure_put needs on each side.
uint64_t put_buffer_bytes(const Context& c);

// Dependent chain read by `reader` from a buffer built on `owner` (chain_on_owner is the
// owner's own address of it, `bytes` its size). launch(stream, hops) starts the style's
// chain kernel on the reader (cycles / record of the reader).
using ChainLaunch = std::function<void(cudaStream_t, int hops)>;
Row measure_chain(Context& c, const Spec& s, int reader, int owner, uint64_t* chain_on_owner, uint64_t bytes,
                  const ChainLaunch& launch);
uint64_t chain_bytes(const Context& c, const Spec& s);

// Ping-pong between a (initiator) and b. reset() zeroes the style's flags (collective);
// launch(gpu, stream, initiator) starts the style's pingpong kernel on gpu.
using SideLaunch = std::function<void(int gpu, cudaStream_t, bool initiator)>;
// The payload source of the library styles' data ping-pongs (total_iters() 16-B rounds per
// GPU), and their reset before a sample: on both GPUs `clear(gpu)` (the style's flags) and
// the payload refilled, then every rank meets.
const SymBuf& pingpong_payload(Context& c);
std::function<void()> pingpong_reset(Context& c, const SymBuf& payload, std::function<void(int gpu)> clear);
Row measure_pingpong(Context& c, const Spec& s, const std::function<void()>& reset, const SideLaunch& launch);

// Barrier across a and b: launch(gpu, stream) starts the style's barrier kernel.
Row measure_barrier(Context& c, const Spec& s, const std::function<void()>& reset,
                    const std::function<void(int gpu, cudaStream_t)>& launch);

// One kernel on a, timing total_iters() operations (store / quiet / fence).
Row measure_single(Context& c, const Spec& s, const std::function<void(cudaStream_t)>& launch);

// Bulk put of bulk_pass_bytes from a to b in messages of s.message_bytes. `enqueue(stream,
// n_msgs)` is one pass. With a signal, counter_on_b() reads the receiver's counter (on b),
// which must equal messages * passes; reset_counter() zeroes it (collective).
struct BulkSignal {
  std::function<void()> reset;
  std::function<unsigned long long()> read_on_b;
};
Row measure_bulk(Context& c, const Spec& s, void* src_on_a, void* dst_on_b,
                 const std::function<void(cudaStream_t, uint64_t n_msgs)>& enqueue, const BulkSignal* signal);

}  // namespace pk::prim
