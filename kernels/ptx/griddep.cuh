#pragma once
// Programmatic dependent launch (sm_90): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start before the kernel ahead of it
// in its stream has finished; griddepcontrol.wait then blocks until that kernel has completed
// and its memory is visible, and griddepcontrol.launch_dependents lets the kernel behind this
// one start once every block of this grid has issued it (or exited). Without the attribute
// both are no-ops, so a kernel that calls them runs as before under an ordinary launch.
// Hand-written: cuda::ptx has neither (cudaGridDependencySynchronize is the runtime's name for
// the first). Included where used (kernels/collectives/coll_sync.cuh), not by ptx.cuh, so that
// the kernels of the other studies do not recompile for it.

namespace pk::ptx {

__device__ __forceinline__ void griddep_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void griddep_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace pk::ptx
