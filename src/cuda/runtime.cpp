// Device memory and availability through the CUDA runtime API (host code,
// compiled by the C++ compiler and linked against cudart).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/backend.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/register.hpp"
#include "spx/core/array.hpp"

namespace spx {
namespace detail {
namespace {
/// A CUDA device is present and the runtime works (asked once).
bool device_present() noexcept {
  static const bool present = [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  }();
  return present;
}
}  // namespace

void* device_malloc(std::size_t bytes) {
  if (!device_present())
    throw Unsupported(fmt::format("device allocation of {} bytes: no usable CUDA device", bytes));
  void* p = nullptr;
  // In the legacy stream's order: a copy or kernel on it (or on a blocking
  // stream) that follows sees the memory; memory reused from the pool was
  // freed only once the device was idle (device_free).
  const cudaError_t err = cuda::pool_allocate(&p, bytes, cuda::PoolKind::Array, cudaStreamLegacy);
  if (err == cudaErrorMemoryAllocation) {
    std::size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    throw OutOfMemory(fmt::format("device allocation of {} bytes failed ({} bytes free of {})",
                                  bytes, free_bytes, total),
                      bytes);
  }
  cuda::check(err, "cudaMallocFromPoolAsync (device array)");
  return p;
}

void device_free(void* p) noexcept {
  // As cudaFree: wait for the array's device first, so that no kernel on any
  // stream still reads the memory when the pool hands it out again.
  int current = 0;
  cudaGetDevice(&current);
  int owner = current;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) == cudaSuccess) owner = attr.device;
  if (owner != current) cudaSetDevice(owner);
  cudaDeviceSynchronize();
  cudaFreeAsync(p, cudaStreamLegacy);
  if (owner != current) cudaSetDevice(current);
}

void device_copy(void* dst, const void* src, std::size_t bytes) {
  cuda::check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
  // From pageable host memory, cudaMemcpy may return before the data reaches
  // the device; wait, so that kernels on any stream (non-blocking ones too)
  // see it.
  cuda::check(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize after cudaMemcpy");
}

/// Device-to-device cudaMemcpy of 256 MiB (less when memory is short),
/// timed with events: median of 5 after a warm-up; bytes read + written.
double device_copy_bandwidth() {
  std::size_t free_bytes = 0, total = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo (copy bandwidth)");
  std::size_t bytes = std::size_t{256} << 20;
  while (bytes > (std::size_t{1} << 20) && 2 * bytes > free_bytes / 2)
    bytes /= 2;
  void* src = device_malloc(bytes);
  void* dst = nullptr;
  try {
    dst = device_malloc(bytes);
  } catch (...) {
    device_free(src);
    throw;
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<float> ms;
  cudaError_t err = cudaEventCreate(&start);
  if (err == cudaSuccess) err = cudaEventCreate(&stop);
  for (int rep = 0; rep < 6 && err == cudaSuccess; ++rep) {
    err = cudaEventRecord(start, cudaStreamLegacy);
    if (err == cudaSuccess)
      err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy);
    if (err == cudaSuccess) err = cudaEventRecord(stop, cudaStreamLegacy);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float t = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&t, start, stop);
    if (err == cudaSuccess && rep > 0) ms.push_back(t);
  }
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  device_free(src);
  device_free(dst);
  cuda::check(err, "copy bandwidth (cudaMemcpyAsync timed with events)");
  std::sort(ms.begin(), ms.end());
  const double seconds = std::max(1e-9, static_cast<double>(ms[ms.size() / 2]) * 1e-3);
  return 2.0 * static_cast<double>(bytes) / seconds;
}

void device_synchronize() {
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

const BackendModule& cuda_backend_module() {
  static const BackendModule module{
      .backend = Backend::Cuda,
      .space = Space::Device,
      .available = device_present,
      .allocate = device_malloc,
      .deallocate = device_free,
      .copy = device_copy,
      .copy_bandwidth = device_copy_bandwidth,
      .synchronize = device_synchronize,
      .csr_spmv_auto = cuda::choose_csr_from,
      .bcsr_refusal = cuda::bcsr_refusal,
      .spmv_runs_as = cuda::sell_family_runs_as,
      .register_f32_i32 = register_cuda_kernels<float, std::int32_t>,
      .register_f32_i64 = register_cuda_kernels<float, std::int64_t>,
      .register_f64_i32 = register_cuda_kernels<double, std::int32_t>,
      .register_f64_i64 = register_cuda_kernels<double, std::int64_t>,
  };
  return module;
}

}  // namespace detail

}  // namespace spx
