// What each backend provides to the SpMM dispatcher (src/core/ops_spmm.cpp)
// and how the backends register their SpMM kernels. The CPU side lives in
// src/cpu/spmm_*.cpp, the CUDA side in src/cuda/spmm_*.cu; a build without
// CUDA links the stub in src/core/ops_spmm.cpp.
#pragma once

#include "spx/core/view.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// C = beta*C over the m×n matrix C (beta = 0 writes zeros without reading C).
template <Value T>
void cpu_scale_dense(T beta, DenseView<T> C);
template <Value T>
void cuda_scale_dense(T beta, DenseView<T> C, const ExecContext& ctx);

/// Add the SpMM kernels and Auto rules of a backend (called from
/// register_cpu_kernels / register_cuda_kernels).
template <Value T, Index I>
void register_cpu_spmm_kernels(Registry<T, I>& registry);
template <Value T, Index I>
void register_cuda_spmm_kernels(Registry<T, I>& registry);

}  // namespace spx::detail
