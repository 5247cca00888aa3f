// The CUDA backend's registration functions, device memory and vector
// operations (the module is in runtime.cpp). Plain C++ declarations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/registry.hpp"

namespace spx::detail {

/// Adds every CUDA kernel, Auto rule, conversion and vector operation to
/// `registry` (src/cuda/register.cu).
template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& registry);
/// The SpMM part (src/cuda/register_spmm.cu).
template <Value T, Index I>
void register_cuda_spmm_kernels(Registry<T, I>& registry);
/// The device conversions from CSR (src/cuda/convert_device.cpp).
template <Value T, Index I>
void register_cuda_conversions(Registry<T, I>& registry);

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
