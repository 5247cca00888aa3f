// Checks for CUDA runtime calls and kernel launches. Host-side header; usable
// from .cpp and .cu files (no fmt here: nvcc rejects fmt's compile-time format
// strings).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "spx/core/error.hpp"

namespace spx::cuda {

inline void check(cudaError_t err, std::string_view what) {
  if (err != cudaSuccess)
    throw CudaError(std::string(what) + " failed: " + cudaGetErrorString(err) + " (" +
                    cudaGetErrorName(err) + ")");
}

/// Call after every kernel launch.
inline void check_launch(std::string_view kernel) {
  check(cudaGetLastError(), kernel);
}

}  // namespace spx::cuda
