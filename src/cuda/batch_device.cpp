// Device properties the batch kernels size themselves by (host code).
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>

#include "cuda/batch_kernels.hpp"
#include "cuda/check.hpp"

namespace spx::cuda {

int shared_bytes_per_block() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex mutex;
  static std::map<int, int> bytes_of;
  std::lock_guard lock(mutex);
  if (auto it = bytes_of.find(device); it != bytes_of.end()) return it->second;
  int bytes = 0;
  check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlock, device),
        "cudaDeviceGetAttribute(cudaDevAttrMaxSharedMemoryPerBlock)");
  bytes_of[device] = bytes;
  return bytes;
}

}  // namespace spx::cuda
