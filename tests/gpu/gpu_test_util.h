#pragma once
// GPU tests skip, with the reason, where there is no usable GPU.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

inline std::string no_gpu_reason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("no usable CUDA GPU: cudaGetDeviceCount: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "no CUDA GPU visible";
  return "";
}

#define PK_REQUIRE_GPU()                                      \
  do {                                                        \
    std::string why_ = no_gpu_reason();                       \
    if (!why_.empty()) GTEST_SKIP() << why_;                  \
  } while (0)
