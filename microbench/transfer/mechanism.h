#pragma once
// A transfer mechanism is one small class: it fills in and checks its knobs, and builds the
// operation one flow enqueues. Adding a mechanism = one file + one line in mechanisms().
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../../kernels/status.cuh"
#include "../harness/topology.h"
#include "transfer_point.h"

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
  virtual bool uses_sms() const = 0;
  // Largest message one operation can carry on this GPU.
  virtual uint64_t max_message(const GpuInfo& g) const = 0;
  virtual uint64_t default_max_ops() const = 0;
  // Fills knobs left at 0 with defaults, checks the rest against the GPU (ArgError).
  virtual void resolve(TransferPoint& p, const GpuInfo& g) const = 0;
  // bytes_per_op must be a multiple of this.
  virtual uint64_t op_granule(const TransferPoint& p) const { return p.message_bytes; }
  virtual std::unique_ptr<FlowOp> prepare(const TransferPoint& p, const FlowBuffers& b, const GpuInfo& g) const = 0;
};

const std::vector<const Mechanism*>& mechanisms();
const Mechanism& mechanism(const std::string& name);  // ArgError if unknown

// Defined in one file each.
const Mechanism& copy_engine_mechanism();
const Mechanism& tma_bulk_mechanism();
const Mechanism& tma_tile_mechanism();
const Mechanism& register_mechanism();
const Mechanism& register_l2hint_mechanism();

}  // namespace pk::transfer
