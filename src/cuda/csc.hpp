// CSC on the CUDA backend (csc.cu): SpMV by column scatter (atomics) or
// through a cached transposition of the pattern (deterministic), SpMM through
// the same transposition, and the transposition itself, which the device
// conversion CSR → CSC also uses. Plain C++ declarations (no fmt: nvcc
// includes this).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "cuda/cache_entries.hpp"
#include "spx/core/view.hpp"
#include "spx/formats/csc.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

/// The transposition of the compressed pattern (ptr: outer + 1 offsets, idx:
/// nnz inner indices in [0, inner)), on `stream`, which is synchronized before
/// it returns: a stable radix sort of the entries by inner index, so entries
/// of one inner slice keep their outer order.
template <Index I>
TransposedPattern<I> transpose_pattern(std::int64_t outer, std::int64_t inner, const I* ptr,
                                       const I* idx, std::int64_t nnz, cudaStream_t stream);

/// dst[p] = src[perm[p]] for p < n, on `stream`.
template <Value T, Index I>
void gather(const T* src, const I* perm, std::int64_t n, T* dst, cudaStream_t stream);

/// The rows of a device CSC (TransposedPattern over its columns), built on
/// ctx.stream on first use and kept in A's structure cache.
template <Value T, Index I>
const TransposedPattern<I>& csc_rows(const Csc<T, I>& A, const ExecContext& ctx);

/// SpMV, column scatter: equal nonzeros per warp (ChunkStarts over the
/// columns, cached), each entry adding alpha·a_rc·x[c] into y[r] with an
/// atomic add, after y = beta·y. Not deterministic.
template <Value T, Index I>
void spmv_csc_scatter(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y,
                      const ExecContext& ctx);

/// SpMV through csc_rows: equal nonzeros per warp over the rows (ChunkStarts,
/// cached), runs of equal rows summed by warp scans, the rows crossing the
/// warps' chunks fixed up in warp order; the values read through the
/// permutation. Deterministic, no atomics.
template <Value T, Index I>
void spmv_csc_transposed(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx);

/// The Auto rule for a device CSC (csc.cu).
template <Value T, Index I>
Algorithm choose_csc(const Csc<T, I>& A);

/// SpMM through csc_rows: a warp per row and tile of 32 columns of B, the
/// row's entries in a fixed order. Deterministic; any layouts.
template <Value T, Index I>
void spmm_csc_transposed(T alpha, const Csc<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                         const ExecContext& ctx);

/// Empty when spmm_csc_transposed can launch for this shape (grid limits).
template <Value T, Index I>
std::string spmm_csc_can_run(const Csc<T, I>& A, const SpmmShape& shape);

}  // namespace spx::cuda
