#pragma once
// A transfer mechanism is one small class: it declares its knobs, fills in and checks their
// values, and builds the operation one flow enqueues. Adding a mechanism = one file + one
// line in mechanism_list.h.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/status.cuh"
#include "microbench/harness/capability.h"
#include "microbench/harness/topology.h"
#include "microbench/transfer/knob.h"
#include "microbench/transfer/transfer_point.h"

namespace pk::transfer {

// Where one flow reads and writes, as addressed from the issuing GPU.
struct FlowBuffers {
  int src_gpu = 0, dst_gpu = 0, issuer = 0;
  char* src_buf = nullptr;  // whole source buffer (tensor maps cover it all)
  uint64_t src_buf_bytes = 0;
  char* dst_buf = nullptr;
  uint64_t dst_buf_bytes = 0;
  uint64_t src_offset = 0, dst_offset = 0;  // group 0's region
  uint64_t bytes_per_op = 0;                // group g is at offset + g * bytes_per_op
  uint64_t ops = 0;                         // messages per operation
  int sms = 0;                              // SMs this flow may use
  Deadline deadline{};                      // spin-wait limit and the issuer's status word
  // Group g's source and destination regions.
  const char* src(int group) const { return src_buf + src_offset + group * bytes_per_op; }
  char* dst(int group) const { return dst_buf + dst_offset + group * bytes_per_op; }
};

class FlowOp {
 public:
  virtual ~FlowOp() = default;
  // Enqueues one operation (all messages of group `group`) on `s`; the current device is
  // the issuer.
  virtual void enqueue(cudaStream_t s, int group) = 0;
  virtual int enqueues_per_op() const { return 1; }
};

class Mechanism {
 public:
  virtual ~Mechanism() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // Its knobs, in the order of point names. A mechanism that runs on SMs lists knobs::sms.
  virtual std::vector<KnobUse> knobs() const = 0;
  bool uses_sms() const;
  bool has_knob(const std::string& knob) const;
  // Largest message one operation can carry on this GPU.
  virtual uint64_t max_message(const GpuInfo& g) const = 0;
  virtual uint64_t default_max_ops() const = 0;
  // Its message sizes in the fig2 preset (bandwidth against message size), which every
  // registered mechanism joins (a mechanism that runs on SMs, on every SM).
  virtual std::vector<uint64_t> size_sweep(const GpuInfo& g) const = 0;
  // Fills knobs left at 0 (declared defaults first, then resolve_knobs()), checks every
  // value against its declaration and the GPU (ArgError naming the knob's flag).
  void resolve(TransferPoint& p, const GpuInfo& g) const;
  // bytes_per_op must be a multiple of this.
  virtual uint64_t op_granule(const TransferPoint& p) const { return p.message_bytes; }
  virtual std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const = 0;
  // What the issuing GPU must have; a point on a GPU without it is skipped with the reason.
  // Every mechanism needs the build's device code: the start gate is a kernel.
  virtual std::vector<Feature> needs() const { return {Feature::device_code}; }

 protected:
  // Mechanism-specific defaults that depend on the point, and checks beyond the declared
  // allowed values.
  virtual void resolve_knobs(TransferPoint& p, const GpuInfo& g) const = 0;
};

// Powers of two from lo to hi (both included when powers of two); the largest power of two <= x.
std::vector<uint64_t> pow2_sizes(uint64_t lo, uint64_t hi);
uint64_t largest_pow2_at_most(uint64_t x);

const std::vector<const Mechanism*>& mechanisms();
const Mechanism& mechanism(const std::string& name);  // ArgError if unknown
std::vector<std::string> mechanism_names();
// Whether the mechanism of this name runs on SMs (Mechanism::uses_sms); true for a name this
// build does not register, as for any name that is not a copy engine's. For readers of
// transfer CSVs (the sweeps, the fused cost model).
bool mechanism_uses_sms(std::string_view name);

// Every knob of every registered mechanism, first declaration first: the knob columns of
// transfer.csv, the override flags, the order of point names. Throws std::logic_error if
// two mechanisms declare one knob name differently.
const std::vector<Knob>& all_knobs();
// The columns of transfer.csv (the knob columns derive from all_knobs()).
const std::vector<std::string>& transfer_columns();

}  // namespace pk::transfer
