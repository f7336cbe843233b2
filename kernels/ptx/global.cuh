#pragma once
// Accesses to global memory (local, or a peer GPU's through a peer pointer). Hand-written:
// cuda::ptx::ld/st are weak only and plain asm (the compiler may merge or hoist them); the
// kernels need the acquire/release/relaxed/volatile forms, and weak accesses that stay where
// they are written, all asm volatile with a "memory" clobber. (cuda::ptx has no red/atom on
// global memory either; cuda::atomic_ref is not one instruction per call.)
#include <cstdint>

namespace pk::ptx {

// name(p) loads a T, name(p, v) stores or adds one: `op` is the instruction up to the state
// space, `type` what follows it.
#define PK_PTX_LOAD(name, T, op, bits, reg)                                              \
  __device__ __forceinline__ T name(const T* p) {                                        \
    T v;                                                                                 \
    asm volatile(op ".global.b" #bits " %0, [%1];" : "=" reg(v) : "l"(p) : "memory");    \
    return v;                                                                            \
  }
#define PK_PTX_STORE(name, T, op, type)                                                  \
  __device__ __forceinline__ void name(T* p, T v) {                                      \
    asm volatile(op ".global" type " [%0], %1;" ::"l"(p), "r"(v) : "memory");            \
  }

// ---- 16-byte and 4-/8-byte data, weak, in the global space explicitly ----
// A pointer picked out of a PeerTable at run time loses its address space for the compiler,
// which then emits generic LD/ST; these stay LDG/STG. asm volatile: the compiler neither
// merges nor hoists them (a dependent chain stays a chain). "Weak" is the PTX memory model's
// word for an ordinary access: no ordering and no coherence promise beyond the next fence or
// synchronising operation, and an L1 line read before may serve it.
#define PK_PTX_LOAD_V4(name, P, op)                                                                       \
  __device__ __forceinline__ uint4 name(const P* p) {                                                     \
    uint4 v;                                                                                              \
    asm volatile(op " {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory"); \
    return v;                                                                                             \
  }
PK_PTX_LOAD_V4(ld_global_v4, void, "ld.global.v4.u32")
// 16-byte load asking L2 to fetch the surrounding 256-B block (a prefetch-size hint).
PK_PTX_LOAD_V4(ld_global_l2_256b, uint4, "ld.global.L2::256B.v4.u32")
#undef PK_PTX_LOAD_V4
__device__ __forceinline__ void st_global_v4(void* p, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
PK_PTX_LOAD(ld_weak_u64, uint64_t, "ld", 64, "l")
__device__ __forceinline__ uint4 ld_weak_v4(const uint4* p) { return ld_global_v4(p); }
// The element types of the primitives study (4 and 16 bytes).
PK_PTX_LOAD(ld_global, uint32_t, "ld", 32, "r")
__device__ __forceinline__ uint4 ld_global(const uint4* p) { return ld_global_v4(p); }
PK_PTX_STORE(st_global, uint32_t, "st", ".b32")
__device__ __forceinline__ void st_global(uint4* p, uint4 v) { st_global_v4(p, v); }

// 16-B accesses as plain C++, not asm volatile: the compiler may then batch several loads of
// an unrolled loop before the first use (a thread with one load in flight is latency-bound
// across NVLink). They never move across the signals, which are asm volatile with "memory"
// clobbers, and bar.sync.
__device__ __forceinline__ uint4 ld_v4(const void* p) { return *static_cast<const uint4*>(p); }
__device__ __forceinline__ void st_v4(void* p, const uint4& v) { *static_cast<uint4*>(p) = v; }

// ---- Low-latency (LL) lines: 16 B = two 8-B elements {data32, flag32} ----
// A vector access is, in the memory model, one access per element, and an aligned 8-B
// access is single-copy atomic: a reader sees a whole {data, flag} pair or none of it, so
// the flag proves the data beside it without any fence. (NCCL's LL protocol rests on the
// same property.) U64: uint64_t or unsigned long long (distinct 8-B types on LP64).
__device__ __forceinline__ void st_volatile_v2_u64(void* p, uint64_t a, uint64_t b) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}
template <class U64>
__device__ __forceinline__ void ld_volatile_v2_u64(const void* p, U64& a, U64& b) {
  static_assert(sizeof(U64) == 8, "two 8-byte elements");
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

// ---- Flags and signals: one wrapper per (semantics, scope) a kernel uses ----
PK_PTX_LOAD(ld_acquire_sys, int, "ld.acquire.sys", 32, "r")
PK_PTX_LOAD(ld_acquire_gpu, int, "ld.acquire.gpu", 32, "r")
PK_PTX_LOAD(ld_relaxed_sys, int, "ld.relaxed.sys", 32, "r")
PK_PTX_LOAD(ld_relaxed_gpu, int, "ld.relaxed.gpu", 32, "r")
PK_PTX_LOAD(ld_volatile, int, "ld.volatile", 32, "r")
PK_PTX_LOAD(ld_relaxed_sys_u64, uint64_t, "ld.relaxed.sys", 64, "l")
PK_PTX_LOAD(ld_volatile_u64, uint64_t, "ld.volatile", 64, "l")
PK_PTX_STORE(st_release_sys, int, "st.release.sys", ".b32")
PK_PTX_STORE(st_release_gpu, int, "st.release.gpu", ".b32")
PK_PTX_STORE(st_relaxed_sys, int, "st.relaxed.sys", ".b32")
PK_PTX_STORE(st_relaxed_gpu, int, "st.relaxed.gpu", ".b32")
PK_PTX_STORE(st_volatile, int, "st.volatile", ".b32")
PK_PTX_STORE(red_release_sys_add, int, "red.release.sys", ".add.s32")
PK_PTX_STORE(red_release_gpu_add, int, "red.release.gpu", ".add.s32")
#undef PK_PTX_LOAD
#undef PK_PTX_STORE

__device__ __forceinline__ int atom_add_acq_rel_gpu(int* p, int v) {
  int old;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ __forceinline__ int atom_add_acq_rel_sys(int* p, int v) {
  int old;
  asm volatile("atom.acq_rel.sys.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}

}  // namespace pk::ptx
