// What each backend provides to the dispatcher. The CPU backend lives in
// src/cpu, the CUDA backend in src/cuda; a build without CUDA links stubs
// (src/core/registry.cpp) that register nothing.
#pragma once

#include "spx/core/view.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// Adds every kernel of the backend to `registry`.
template <Value T, Index I>
void register_cpu_kernels(Registry<T, I>& registry);
template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& registry);
/// The CPU baseline (Eigen's product on CSR; src/baselines/eigen.cpp).
template <Value T, Index I>
void register_eigen_baseline(Registry<T, I>& registry);

/// y = beta*y (beta = 0 writes zeros without reading y).
template <Value T>
void cpu_scale(T beta, T* y, std::int64_t n);
template <Value T>
void cuda_scale(T beta, T* y, std::int64_t n, const ExecContext& ctx);

}  // namespace spx::detail
