// Every point of the study, in the order it runs (the same on every rank). The ordering
// and call columns say what each row's instructions or library calls do; the library texts
// come from reading the NVSHMEM 3.8 and NCCL 2.28 device headers (README.md quotes them).
#include <initializer_list>

#include "kernels/primitives/ordering.cuh"
#include "microbench/primitives/primitives.h"

namespace pk::prim {
namespace {

const std::vector<std::string> kScopes = {"thread", "warp", "block"};

// ---- what the library calls do on NVLink (P2P path) ----
// What every NVSHMEM call does first: find the peer's heap.
const std::string kNvshmemDefined = "library-defined: __ldg(peer_heap_base_p2p + pe) + heap offset";
std::string nvshmem_put_call(int elem, const std::string& scope, bool nbi) {
  if (scope == "thread") {
    if (elem == 4) return nbi ? "nvshmem_uint_put_nbi(n=1)" : "nvshmem_uint_p";
    return nbi ? "nvshmem_put128_nbi(n=1)" : "nvshmem_put128(n=1)";
  }
  return "nvshmemx_" + (elem == 4 ? std::string("uint_put") : std::string("put128")) + (nbi ? "_nbi_" : "_") + scope;
}
std::string nvshmem_put_detail(int elem, const std::string& scope, bool nbi) {
  std::string d = kNvshmemDefined;
  if (scope != "thread") d += std::string("; ") + (scope == "warp" ? "__syncwarp" : "__syncthreads") + " before and after";
  if (scope == "thread" && !nbi && elem == 4) return d + "; one plain st.global (weak); no fence";
  d += "; TMA-registration check; nvshmemi_memcpy_threadgroup (widest aligned plain ld/st); no fence";
  return d;
}

// A spec on one thread (scope "thread"; the warp and block ones set their own).
Spec make(const std::string& op, const std::string& style, const std::string& metric) {
  Spec s;
  s.op = op;
  s.style = style;
  s.scope = "thread";
  s.metric = metric;
  return s;
}

// ---- row families several styles measure; `base` carries the style's own columns ----

// Element puts: latency and bandwidth, 4- and 16-B elements, every scope, in that order;
// `add` completes and keeps each.
template <class Add>
void element_puts(const Spec& base, Add&& add) {
  for (const char* metric : {kMetricLatency, kMetricGbps})
    for (int elem : {4, 16})
      for (const auto& scope : kScopes) {
        Spec s = base;
        s.op = "put";
        s.metric = metric;
        s.elem_bytes = elem;
        s.scope = scope;
        add(s);
      }
}

// Puts of a value made in registers (one thread, 4 B): latency and bandwidth.
void register_puts(std::vector<Spec>& v, Spec s, const std::string& detail, const std::string& call) {
  s.op = "put";
  s.scope = "thread";
  s.elem_bytes = 4;
  s.mode = "reg";
  s.ordering_detail = detail;
  s.call = call;
  for (const char* metric : {kMetricLatency, kMetricGbps}) {
    s.metric = metric;
    v.push_back(s);
  }
}

// Dependent loads from the peer's memory, resident in its L2 and not.
void peer_gets(std::vector<Spec>& v, Spec s, const std::string& detail, const std::string& call) {
  s.op = "get";
  s.metric = kMetricLatency;
  s.scope = "thread";
  s.ordering_detail = detail;
  s.call = call;
  for (const char* placement : {"peer_l2_resident", "peer_l2_miss"}) {
    s.placement = placement;
    v.push_back(s);
  }
}

// One 4-B remote store alone ("store"), or followed by the style's quiet or fence.
struct StoreRow {
  const char* op;
  const char* call;
  const char* ordering;
  const char* detail;
};
void store_rows(std::vector<Spec>& v, const Spec& base, std::initializer_list<StoreRow> rows) {
  for (const StoreRow& r : rows) {
    Spec s = base;
    s.op = r.op;
    s.metric = kMetricLatency;
    s.elem_bytes = 4;
    s.call = r.call;
    s.ordering = r.ordering;
    s.ordering_detail = r.detail;
    v.push_back(s);
  }
}

// ---- PK style ----

template <class Order>
Spec pk_signal(const std::string& op, bool with_data) {
  Spec s = make(op, kStylePk, kMetricOneWay);
  if (with_data) s.mode = "flag";
  s.ordering = Order::kName;
  s.ordering_detail = Order::kDetail;
  s.call = with_data ? "16-B st.global.v4 of the payload, then the signal" : "signal";
  s.protocol_correct = Order::kOrdersData ? "yes" : "no";
  if (with_data) s.elem_bytes = 16;
  return s;
}

void add_pk_puts(std::vector<Spec>& v) {
  Spec weak = make("put", kStylePk, "");
  weak.ordering = kOrderWeak;
  element_puts(weak, [&](Spec s) {
    s.mode = "st";
    s.ordering_detail = "plain st.global (weak); address from the PeerTable passed by value; no group sync";
    s.call = s.elem_bytes == 4 ? "ld.global.b32 src; st.global.b32" : "ld.global.v4 src; st.global.v4.b32";
    v.push_back(s);
  });
  register_puts(v, weak, "plain st.global (weak) of a value made in registers; address from the PeerTable by value",
                "st.global.b32 of a register value");
}

void add_pk_gets(std::vector<Spec>& v) {
  // Dependent loads: the owner's L2, its HBM, local HBM; weak and relaxed; every memory.
  struct G {
    const char* placement;
    const char* memory;
    const char* ordering;
  };
  for (G g : {G{"peer_l2_resident", "symbuf", kOrderWeak}, G{"peer_l2_resident", "symbuf", kOrderRelaxed},
              G{"peer_l2_miss", "symbuf", kOrderWeak}, G{"peer_l2_miss", "symbuf", kOrderRelaxed},
              G{"local_l2_resident", "symbuf", kOrderWeak}, G{"local_l2_miss", "symbuf", kOrderWeak},
              G{"peer_l2_resident", "nvshmem_heap", kOrderWeak}, G{"peer_l2_miss", "nvshmem_heap", kOrderWeak},
              G{"peer_l2_resident", "nccl_window", kOrderWeak}, G{"peer_l2_miss", "nccl_window", kOrderWeak}}) {
    Spec s = make("get", kStylePk, kMetricLatency);
    s.placement = g.placement;
    s.memory = g.memory;
    s.ordering = g.ordering;
    s.ordering_detail = s.ordering == kOrderWeak ? "ld.global.b64 (weak), base in a register"
                                                  : "ld.relaxed.sys.global.b64, base in a register";
    s.call = s.ordering == kOrderWeak ? "ld.global.b64" : "ld.relaxed.sys.global.b64";
    s.gpus = std::string(g.placement).rfind("local", 0) == 0 ? 1 : 2;
    s.needs_process_per_gpu = s.memory == "nvshmem_heap";
    v.push_back(s);
  }
  {
    Spec s = make("get", kStylePk, kMetricLatency);
    s.placement = "nvbandwidth";
    s.ordering = kOrderWeak;
    s.ordering_detail = "nvbandwidth's ptrChasingKernel: p = p->next (weak), 8-B nodes 128 B apart in address order";
    s.call = "p = p->next over 2 MiB; events per launch, one launch per SM, 1M accesses in all";
    v.push_back(s);
  }
}

void add_pk_signals(std::vector<Spec>& v) {
  v.push_back(pk_signal<OrderRelaxed>("signal", false));
  v.push_back(pk_signal<OrderReleaseAcquireSys>("signal", false));
  v.push_back(pk_signal<OrderFenceThenRelaxed>("signal", false));
  v.push_back(pk_signal<OrderAtomicRelease>("signal", false));
  v.push_back(pk_signal<OrderRelaxed>("put_signal", true));
  v.push_back(pk_signal<OrderReleaseAcquireSys>("put_signal", true));
  v.push_back(pk_signal<OrderFenceThenRelaxed>("put_signal", true));
  v.push_back(pk_signal<OrderAtomicRelease>("put_signal", true));
  {
    Spec s = make("put_signal", kStylePk, kMetricOneWay);
    s.elem_bytes = 16;
    s.mode = "ll";
    s.ordering = kOrderRelaxed;
    s.ordering_detail = "LL protocol: 4-B flag beside 4 B of data in every 8-B word; two st.volatile.global.v2.u64 "
                        "(32 B for 16 B of data); poll ld.volatile.global.v2.u64 until every word shows the round; "
                        "no fence: each aligned u64 is single-copy atomic";
    s.call = "st.volatile.global.v2.u64 x2 (data+flag words)";
    s.protocol_correct = "yes";
    v.push_back(s);
  }
}

// The stores alone or completed, then the barrier.
void add_pk_completion(std::vector<Spec>& v) {
  store_rows(v, make("", kStylePk, ""),
             {{"store", "st.global.b32 alone", kOrderWeak, "st.global.b32 alone"},
              {"quiet", "st.global.b32; fence.sc.sys", kOrderFenceThenRelaxed, "st.global.b32; fence.sc.sys"},
              {"fence", "st.global.b32; fence.acq_rel.sys", kOrderFenceThenRelaxed, "st.global.b32; fence.acq_rel.sys"}});
  for (bool relaxed : {false, true}) {
    Spec s = make("barrier", kStylePk, kMetricLatency);
    s.ordering = relaxed ? OrderRelaxed::kName : OrderReleaseAcquireSys::kName;
    s.ordering_detail = relaxed ? OrderRelaxed::kDetail : OrderReleaseAcquireSys::kDetail;
    s.call = "store round+1 into my slot of every peer's inbox; poll my inbox (NCCL's LSA barrier shape)";
    s.protocol_correct = relaxed ? "no" : "yes";
    v.push_back(s);
  }
}

void add_pk_bulk(std::vector<Spec>& v, const Options& o) {
  for (uint64_t m : o.bulk_sizes) {
    struct B {
      const char* scope;
      const char* mode;
      const char* mechanism;
      const char* call;
    };
    for (B b : {B{"block", "nosignal", "tma", "cp.async.bulk load to smem + bulk store to the peer (kernels/transfer_tma.cuh)"},
                B{"block", "nosignal", "register", "16-B ld/st, unroll 4 (kernels/transfer_register.cuh)"},
                B{"warp", "nosignal", "register", "16-B ld/st per warp, unroll 4"},
                B{"warp", "signal", "register", "16-B ld/st per warp; __syncwarp; red.release.sys.add"},
                B{"block", "signal", "register", "16-B ld/st per block; __syncthreads; red.release.sys.add"}}) {
      Spec s = make("bulk_put", kStylePk, kMetricGbps);
      s.scope = b.scope;
      s.mechanism = b.mechanism;
      s.message_bytes = m;
      s.mode = b.mode;
      s.call = b.call;
      s.ordering = std::string(b.mode) == "signal" ? kOrderAtomic : kOrderWeak;
      s.ordering_detail = std::string(b.mode) == "signal" ? "data: weak stores; signal: red.release.sys.global.add.s32"
                                                          : "weak stores (TMA: async-proxy bulk stores)";
      if (std::string(b.mode) == "signal") s.protocol_correct = "yes";
      v.push_back(s);
    }
  }
}

void add_pk(std::vector<Spec>& v, const Options& o) {
  add_pk_puts(v);
  add_pk_gets(v);
  add_pk_signals(v);
  add_pk_completion(v);
  add_pk_bulk(v, o);
}

// ---- NVSHMEM ----

Spec nvshmem_row(const std::string& op, const std::string& metric) {
  Spec s = make(op, kStyleNvshmem, metric);
  s.memory = "nvshmem_heap";
  s.ordering = kOrderLibrary;
  s.needs_process_per_gpu = true;
  return s;
}

void add_nvshmem_puts_and_gets(std::vector<Spec>& v) {
  element_puts(nvshmem_row("put", ""), [&](Spec s) {
    for (bool nbi : {false, true}) {
      s.mode = nbi ? "nbi" : "blocking";
      s.call = nvshmem_put_call(s.elem_bytes, s.scope, nbi);
      s.ordering_detail = nvshmem_put_detail(s.elem_bytes, s.scope, nbi);
      v.push_back(s);
    }
  });
  register_puts(v, nvshmem_row("put", ""), kNvshmemDefined + "; one plain st (weak); no fence",
                "nvshmem_uint_p(dest, value in a register, pe)");
  peer_gets(v, nvshmem_row("get", ""), kNvshmemDefined + "; one plain ld.global (weak)", "nvshmem_uint64_g");
}

void add_nvshmem_signals(std::vector<Spec>& v) {
  // The headline rows wait as NVSHMEM's perftests do (shmem_signal_ping_pong_latency,
  // shmem_put_signal_ping_pong_latency): nvshmem_uint64_wait_until(EQ) alone. Only the wait:
  // the timing is this study's (clock per round inside the kernel, one way), where the
  // perftest times the whole kernel with events and prints the round trip; not cross-checked.
  const std::string api_wait =
      "wait: nvshmem_uint64_wait_until(EQ) alone, the call NVSHMEM's perftests wait with (volatile poll, no "
      "timeout, then __threadfence (fence.sc.gpu)); a bounded handshake before the loop; timed per round "
      "in the kernel, one way (the perftest: events around the kernel, round trip)";
  {
    Spec s = nvshmem_row("signal", kMetricOneWay);
    s.scope = "thread";
    s.mode = "set";
    s.call = "nvshmemx_signal_op(SET) + nvshmem_uint64_wait_until(EQ)";
    s.ordering_detail = kNvshmemDefined + "; volatile st.u64 (no fence); " + api_wait;
    s.protocol_correct = "no";
    v.push_back(s);
    s.call = "nvshmemx_signal_op(ADD) + nvshmem_uint64_wait_until(EQ)";
    s.mode = "add";
    s.ordering_detail = kNvshmemDefined +
                        "; atomicAdd_system (relaxed atom.add.sys, no fence); " + api_wait;
    v.push_back(s);
    // Not how the library is measured: our bounded poll first, then the library's wait
    // (one more load and fence per receive). Kept, labelled, for what a timeout costs.
    s.call = "nvshmemx_signal_op(SET) + our bounded poll + nvshmem_signal_wait_until(GE)";
    s.mode = kNvshmemBoundedMode;
    s.ordering_detail = kNvshmemDefined +
                        "; volatile st.u64 (no fence); wait: our bounded volatile poll (%globaltimer deadline), then "
                        "nvshmem_signal_wait_until (one more load, __threadfence (fence.sc.gpu), one more load)";
    v.push_back(s);
  }
  {
    Spec s = nvshmem_row("put_signal", kMetricOneWay);
    s.scope = "thread";
    s.elem_bytes = 16;
    s.call = "nvshmem_putmem_signal_nbi(16 B, SET) + nvshmem_uint64_wait_until(EQ)";
    s.ordering_detail = kNvshmemDefined +
                        "; plain stores of the data; __threadfence_system (fence.sc.sys); volatile st.u64 "
                        "signal; " + api_wait;
    s.protocol_correct = "yes";
    v.push_back(s);
  }
}

// The stores alone or completed, then the barriers.
void add_nvshmem_completion(std::vector<Spec>& v) {
  store_rows(v, nvshmem_row("", ""),
             {{"store", "nvshmem_uint_p alone", kOrderLibrary, "library-defined: lookup; plain st.global"},
              {"quiet", "nvshmem_uint_p; nvshmem_quiet", kOrderLibrary,
               "library-defined: quiet = TMA-drain check, connectivity check, __threadfence_system (fence.sc.sys)"},
              {"fence", "nvshmem_uint_p; nvshmem_fence", kOrderLibrary,
               "library-defined: fence = TMA-drain check, __threadfence_system (fence.sc.sys) on NVLink"}});
  for (bool sync_only : {false, true}) {
    Spec s = nvshmem_row("barrier", kMetricLatency);
    s.scope = "thread";
    s.call = sync_only ? "nvshmem_sync_all" : "nvshmem_barrier_all";
    s.mode = sync_only ? "sync_all" : "barrier_all";
    s.ordering_detail = sync_only ? "library-defined: dissemination barrier, volatile st/poll of psync words, no fence"
                                  : "library-defined: quiet (fence.sc.sys), then the dissemination barrier "
                                    "(volatile st/poll of psync words)";
    s.protocol_correct = sync_only ? "no" : "yes";
    v.push_back(s);
  }
}

void add_nvshmem_bulk(std::vector<Spec>& v, const Options& o) {
  for (uint64_t m : o.bulk_sizes)
    for (const char* scope : {"warp", "block"})
      for (bool sig : {false, true}) {
        Spec s = nvshmem_row("bulk_put", kMetricGbps);
        s.scope = scope;
        s.message_bytes = m;
        s.mode = sig ? "signal" : "nosignal";
        s.mechanism = "library";
        s.call = std::string("nvshmemx_putmem") + (sig ? "_signal" : "") + "_nbi_" + scope + "; nvshmem_quiet at the end";
        s.ordering_detail = sig ? "library-defined: group memcpy, group sync, fence.sc.sys, atomicAdd_system signal"
                                : "library-defined: group memcpy (plain ld/st); quiet (fence.sc.sys) at the end";
        if (sig) s.protocol_correct = "yes";
        v.push_back(s);
      }
}

void add_nvshmem(std::vector<Spec>& v, const Options& o) {
  add_nvshmem_puts_and_gets(v);
  add_nvshmem_signals(v);
  add_nvshmem_completion(v);
  add_nvshmem_bulk(v, o);
}

// ---- NCCL's device API ----

void add_nccl(std::vector<Spec>& v) {
  auto base = [](const std::string& op, const std::string& metric) {
    Spec s = make(op, kStyleNcclDev, metric);
    s.memory = "nccl_window";
    return s;
  };
  const std::string lookup = "ncclGetLsaPointer per access (__ldg of the window's flat base and stride, add4G)";
  Spec weak = base("", "");
  weak.ordering = kOrderWeak;
  element_puts(weak, [&](Spec s) {
    s.mode = "st";
    s.ordering_detail = lookup + "; plain st.global (weak); no group sync";
    s.call = "*(T*)ncclGetLsaPointer(win, off, peer) = v";
    v.push_back(s);
  });
  register_puts(v, weak, lookup + "; plain st (weak) of a register value",
                "*(uint32_t*)ncclGetLsaPointer(win, off, peer) = value in a register");
  peer_gets(v, weak, lookup + "; ld.global.b64 (weak)", "*(uint64_t*)ncclGetLsaPointer(win, off, peer)");
  for (bool data : {false, true}) {
    Spec s = base(data ? "put_signal" : "signal", kMetricOneWay);
    s.scope = "thread";
    if (data) s.elem_bytes = 16;
    s.ordering = kOrderReleaseAcquire;
    s.ordering_detail = lookup + "; cuda::atomic_ref<int, thread_scope_system> store(release) / load(acquire)";
    s.call = data ? "16-B store + atomic_ref store(release) through LSA pointers" : "atomic_ref store(release) through an LSA pointer";
    s.protocol_correct = "yes";
    v.push_back(s);
  }
  for (bool relaxed : {false, true}) {
    Spec s = base("barrier", kMetricLatency);
    s.scope = "thread";
    s.mode = relaxed ? "relaxed" : "acq_rel";
    s.ordering = relaxed ? kOrderRelaxed : kOrderReleaseAcquire;
    s.ordering_detail = std::string("ncclLsaBarrierSession<ncclCoopThread>::arrive/wait(") +
                        (relaxed ? "memory_order_relaxed" : "memory_order_acq_rel") +
                        "): atomic_ref store of epoch+1 into each peer's inbox slot, poll of own inbox slots" +
                        (relaxed ? " (relaxed)" : " (st.release.sys / ld.acquire.sys)");
    s.call = "ncclLsaBarrierSession::arrive + wait";
    s.protocol_correct = relaxed ? "no" : "yes";
    v.push_back(s);
  }
}

// ---- the NVSHMEM-shaped emulation ----

void add_emulation(std::vector<Spec>& v) {
  auto base = [](const std::string& op, const std::string& metric) {
    Spec s = make(op, kStyleEmulation, metric);
    s.ordering = kOrderLibrary;
    return s;
  };
  {
    Spec s = base("put", kMetricGbps);
    s.scope = "block";
    s.elem_bytes = 4;
    s.mode = "emulated";
    s.call = "library_put_kernel (kernels/sync_library_style.cuh)";
    s.ordering_detail = "emulation: __ldg of a global table per element, st.volatile, __syncthreads per round";
    v.push_back(s);
  }
  peer_gets(v, base("", ""), "emulation: __ldg of a global table per hop, ld.volatile.global.b64",
            "chase_kernel<true> (kernels/sync_library_style.cuh)");
  {
    Spec s = base("signal", kMetricOneWay);
    s.scope = "block";
    s.call = "library_pingpong_kernel (kernels/sync_library_style.cuh), 128 threads";
    s.ordering_detail = "emulation: __syncthreads; __threadfence_system + atomicAdd_system via a table lookup; "
                        "ld.volatile poll; __syncthreads";
    s.protocol_correct = "no";
    v.push_back(s);
  }
}

}  // namespace

int group_threads(const std::string& scope) {
  if (scope == "thread") return 1;
  if (scope == "warp") return 32;
  return 256;
}

std::vector<Spec> catalogue(const Options& o) {
  std::vector<Spec> v;
  add_pk(v, o);
  add_emulation(v);
  add_nccl(v);
  add_nvshmem(v, o);
  return v;
}

}  // namespace pk::prim
