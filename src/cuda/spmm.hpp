// The CUDA SpMM kernels as the registry and the baselines see them: host
// functions that validate nothing (the dispatcher did), launch on the
// context's stream and check every launch. No fmt here (nvcc includes it).
#pragma once

#include <cstdint>
#include <string>

#include "spx/core/view.hpp"
#include "spx/formats/csr.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

/// Mean row length below which Auto picks the merge-based kernel, above which
/// row split. The paper measured 9.35 on a K40c (Yang, Buluç, Owens, §5.4);
/// TO BE RE-DERIVED ON HOPPER from `spx bench --op spmm`.
inline constexpr double kSpmmMergeThreshold = 9.35;

/// Row split (paper §4.1): a warp per row. n > 16: each warp covers 32
/// columns of B (gridDim.y tiles), the row's column indices and values are
/// broadcast by warp shuffle, B rows are read and C rows written coalesced
/// (row-major). n ≤ 16: the warp splits into 32/W slots of W = next power of
/// two ≥ n lanes; slots stride over the row's nonzeros and are summed by
/// shuffles, so lanes are not left idle.
template <Value T, Index I>
void spmm_csr_row_split(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx);

/// Merge-based (paper §4.2): equal nonzeros per unit (a warp, or a group of W
/// lanes when n ≤ 16), the first row of every unit found once by a partition
/// kernel and kept in A.structure_cache(); a unit writes the rows that start
/// in its range and saves the partial row it starts inside as a carry-out,
/// added by a fix-up kernel.
template <Value T, Index I>
void spmm_csr_merge_based(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                          const ExecContext& ctx);

/// Empty when both kernels can launch for this shape (grid limits).
template <Value T, Index I>
std::string spmm_csr_can_run(const Csr<T, I>& A, const SpmmShape& shape);

/// D = A as a dense column-major m×k matrix (ld = m) in device memory,
/// zeros included; enqueued on ctx.stream. For the cuBLAS GEMM baseline.
template <Value T, Index I>
void csr_to_dense_col_major(const Csr<T, I>& A, T* D, const ExecContext& ctx);

}  // namespace spx::cuda

namespace spx::cuda {

/// Registers the cuSPARSE SpMM (CSR ALG1/ALG2/ALG3) and cuBLAS GEMM
/// baselines (src/baselines/cusparse_spmm.cpp).
template <Value T, Index I>
void register_spmm_baselines(Registry<T, I>& registry);

}  // namespace spx::cuda
