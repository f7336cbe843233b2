#pragma once
// Shared by the fused study's CPU tests.
#include <functional>
#include <string>

#include "microbench/harness/cuda_check.h"

// The ArgError f() throws, its message ("" when it throws none).
inline std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const pk::ArgError& e) {
    return e.what();
  }
  return "";
}
