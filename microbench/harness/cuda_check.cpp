#include "microbench/harness/cuda_check.h"

#include <cstdlib>
#include <sstream>

namespace pk {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  std::ostringstream os;
  os << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << ") from " << expr << " at "
     << file << ":" << line;
  throw CudaError(os.str());
}

void init_cuda_environment() { setenv("CUDA_MODULE_LOADING", "EAGER", 1); }

}  // namespace pk
