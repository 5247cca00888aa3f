// Device memory and availability through the CUDA runtime API (host code,
// compiled by the C++ compiler and linked against cudart).
#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include "core/device.hpp"
#include "cuda/check.hpp"
#include "spx/core/array.hpp"

namespace spx {
namespace detail {

void* device_malloc(std::size_t bytes) {
  if (!cuda_available())
    throw Unsupported(fmt::format("device allocation of {} bytes: no usable CUDA device", bytes));
  void* p = nullptr;
  cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // reset the last error, so a later launch check does not report it
    std::size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    throw OutOfMemory(fmt::format("device allocation of {} bytes failed ({} bytes free of {})",
                                  bytes, free_bytes, total),
                      bytes);
  }
  cuda::check(err, "cudaMalloc");
  return p;
}

void device_free(void* p) noexcept {
  cudaFree(p);
}

void device_copy(void* dst, const void* src, std::size_t bytes) {
  cuda::check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
  // From pageable host memory, cudaMemcpy may return before the data reaches
  // the device; wait, so that kernels on any stream (non-blocking ones too)
  // see it.
  cuda::check(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize after cudaMemcpy");
}

}  // namespace detail

bool cuda_compiled() noexcept {
  return true;
}

bool cuda_available() noexcept {
  static const bool available = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  return available;
}

}  // namespace spx
