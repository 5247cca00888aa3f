// The CUDA backend's registration functions, device memory and vector
// operations (the module is in runtime.cpp). Plain C++ declarations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>

#include "spx/registry.hpp"

namespace spx::detail {

/// Adds every CUDA kernel, Auto rule, conversion and vector operation to
/// `registry` (src/cuda/register.cu).
template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& registry);
/// The ELL, SELL, HLL, JAD and HYB kernels (src/cuda/register_ellpack.cu).
template <Value T, Index I>
void register_cuda_ellpack_kernels(Registry<T, I>& registry);
/// The DIA, HDI and BCSR kernels (src/cuda/register_blocked.cu).
template <Value T, Index I>
void register_cuda_blocked_kernels(Registry<T, I>& registry);
/// The SpMM part (src/cuda/register_spmm.cu).
template <Value T, Index I>
void register_cuda_spmm_kernels(Registry<T, I>& registry);
/// The device conversions from CSR (src/cuda/convert_device.cpp).
template <Value T, Index I>
void register_cuda_conversions(Registry<T, I>& registry);

/// The KernelInfo of a CUDA kernel (the registry's add_* functions set the
/// operation and the format).
inline KernelInfo cuda_kernel(Algorithm algorithm, bool deterministic = true) {
  return KernelInfo{Op::Spmv, Format::Csr, algorithm, Backend::Cuda, deterministic, false};
}

/// A CUDA SpMV launcher for format M.
template <class M, Value T>
using CudaSpmv = void (*)(T, const M&, const T*, T, T*, const ExecContext&);

/// Registers CUDA SpMV kernels of format M, one per (algorithm, launcher),
/// deterministic and able to run any matrix of the format, and M's Auto
/// rule on the CUDA backend.
template <class M, Value T, Index I>
void add_spmv_kernels(Registry<T, I>& reg, std::function<Algorithm(const M&)> choose,
                      std::initializer_list<std::pair<Algorithm, CudaSpmv<M, T>>> kernels) {
  for (const auto& kernel : kernels)
    reg.template add_spmv<M>(cuda_kernel(kernel.first), always<M>, kernel.second);
  reg.template set_spmv_auto<M>(Backend::Cuda, std::move(choose));
}

/// Registers the one CUDA SpMV kernel of format M, which Auto always picks.
template <class M, Value T, Index I>
void add_only_spmv(Registry<T, I>& reg, Algorithm algorithm, bool deterministic,
                   CudaSpmv<M, T> run) {
  reg.template add_spmv<M>(cuda_kernel(algorithm, deterministic), always<M>, run);
  reg.template set_spmv_auto<M>(Backend::Cuda, [algorithm](const M&) { return algorithm; });
}

/// y = beta*y (beta = 0 writes zeros without reading y), src/cuda/vector.cu.
template <Value T>
void cuda_scale(T beta, T* y, std::int64_t n, const ExecContext& ctx);
/// C = beta*C over the dense matrix C, src/cuda/spmm_dense.cu.
template <Value T>
void cuda_scale_dense(T beta, DenseView<T> C, const ExecContext& ctx);

/// Device memory (src/cuda/runtime.cpp): cudaMalloc raising OutOfMemory,
/// cudaFree, and a synchronous cudaMemcpy with cudaMemcpyDefault.
void* device_malloc(std::size_t bytes);
void device_free(void* p) noexcept;
void device_copy(void* dst, const void* src, std::size_t bytes);

}  // namespace spx::detail
