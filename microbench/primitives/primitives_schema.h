#pragma once
// The primitives study's vocabulary, shared by the binary, the summary tool and the tests
// (plain C++: no CUDA). One row of primitives.csv = one Spec measured: an operation done
// in one style, at one scope / size / ordering, on one kind of memory.
#include <cstdint>
#include <string>
#include <vector>

#include "microbench/harness/tidy_csv.h"

namespace pk::prim {

// ---- styles ----
inline constexpr const char* kStylePk = "pk";               // PeerTable by value, PTX wrappers
inline constexpr const char* kStyleNvshmem = "nvshmem";     // NVSHMEM 3.8 public device API
inline constexpr const char* kStyleNcclDev = "nccl_dev";    // NCCL 2.28 device API (LSA)
inline constexpr const char* kStyleEmulation = "emulation"; // kernels/sync_library_style.cuh
const std::vector<std::string>& style_names();

// ---- memory orderings (the `ordering` column) ----
inline constexpr const char* kOrderRelaxed = "relaxed";                       // volatile/relaxed, no fence
inline constexpr const char* kOrderReleaseAcquire = "release_acquire_sys";    // st.release / ld.acquire .sys
inline constexpr const char* kOrderFenceThenRelaxed = "fence_then_relaxed";   // fence.acq_rel.sys + relaxed
inline constexpr const char* kOrderAtomic = "atomic";                         // red/atom (with release)
inline constexpr const char* kOrderLibrary = "library-defined";               // ordering_detail says what
inline constexpr const char* kOrderWeak = "weak";                             // plain data ld/st
const std::vector<std::string>& ordering_labels();
bool is_ordering_label(const std::string& s);

// ---- signalling protocols (the `protocol` column) ----
// How a receiver learns that data has arrived, independent of the memory ordering (the
// `ordering` column) of the instructions that carry it. A speedup is stated only between
// rows of the same protocol and ordering; a protocol's own advantage is stated as that.
inline constexpr const char* kProtocolFlag = "flag";                       // signal: a flag word, no data
inline constexpr const char* kProtocolDataThenFlag = "data_then_flag";     // data stores, then a separate flag word
inline constexpr const char* kProtocolLL = "ll";                           // the flag inside every 8-B data word
inline constexpr const char* kProtocolDataThenCounter = "data_then_counter";  // bulk: messages, then a counter add
// The protocol of a row of operation `op` in mode `mode` ("" where nothing is signalled).
std::string protocol_of(const std::string& op, const std::string& mode);

// ---- operations (the `op` column) ----
// put: element-wise put; get: dependent remote load; signal: bare signal ping-pong;
// put_signal: 16 B + signal ping-pong; store / quiet / fence: one 4-B remote store with no
// completion, with quiet, with fence; barrier: across GPUs; bulk_put: message-size sweep.
const std::vector<std::string>& op_names();

// ---- metrics (the `metric` column; `value` is in its unit) ----
inline constexpr const char* kMetricLatency = "latency_ns";  // per call / per hop / per barrier
inline constexpr const char* kMetricOneWay = "one_way_ns";   // ping-pong round trip / 2
inline constexpr const char* kMetricGbps = "gbps";           // GB/s (1e9 B/s) per direction

struct Spec {
  std::string op, style, scope;   // scope: thread | warp | block
  int elem_bytes = 0;             // element puts: 4 or 16 (0: not applicable)
  uint64_t message_bytes = 0;     // bulk puts
  std::string mode;               // blocking | nbi | st | signal | nosignal | ...
  std::string mechanism;          // bulk puts: tma | register | library
  std::string ordering;           // one of ordering_labels()
  std::string ordering_detail;    // the instructions (library rows: what the call does)
  std::string call;               // the API call or instruction timed
  std::string memory = "symbuf";  // symbuf (pk::SymBuf) | nvshmem_heap | nccl_window
  std::string placement;          // get: peer_l2_resident | peer_l2_miss | local_l2_miss | nvbandwidth
  std::string protocol_correct;   // signals: yes | no (is it enough when data precedes the flag)
  std::string metric;
  int gpus = 2;                   // GPUs needed
  bool needs_process_per_gpu = false;  // NVSHMEM: one PE per process
};

// The columns of primitives.csv, metadata columns excluded (the binary appends them).
const std::vector<std::string>& study_columns();
// The Google Benchmark name of a point (unique per Spec).
std::string point_name(const Spec& s);
// The identity columns of a row.
Row spec_row(const Spec& s);

}  // namespace pk::prim
