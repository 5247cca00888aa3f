// The CPU backend's batched SpMV: OpenMP over matrices, each matrix multiplied
// sequentially by one thread (src/cpu/batch_spmv.cpp).
#pragma once

#include "spx/batch/batch.hpp"
#include "spx/registry.hpp"

namespace spx::cpu {

template <Value T, Index I>
void batch_spmv_csr(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void batch_spmv_coo(T alpha, const BatchCoo<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
template <Value T, Index I>
void batch_spmv_ell(T alpha, const BatchEll<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

/// Registers the kernels above (algorithm CpuRows) and their Auto rules.
template <Value T, Index I>
void register_batch_kernels(Registry<T, I>& registry);

}  // namespace spx::cpu
