// Declarations of the CUDA SpMV kernels' launchers, one group per format.
// Each is defined in src/cuda/<format>.cu and registered in
// src/cuda/register.cu. A launcher sees a device matrix with rows > 0,
// nnz > 0 and alpha != 0 (the dispatcher handles the rest), enqueues its
// kernels on ctx.stream and returns without synchronizing. With beta == 0, y
// is never read. No fmt here: .cu files include this header.
#pragma once

#include <cstdint>

#include "cuda/cache_entries.hpp"
#include "cuda/launch.hpp"
#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

// ---- CSR (csr.cu) -----------------------------------------------------------
// Launch geometry: 256 threads per block throughout.

/// Thread per row (V = 1 below).
template <Value T, Index I>
void spmv_csr_scalar(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// Warp per row (V = 32).
template <Value T, Index I>
void spmv_csr_vector(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// "CSR-smart": V = next power of two of the mean row length, clamped to
/// 1..32; V consecutive lanes per row, reduced with shuffles.
template <Value T, Index I>
void spmv_csr_adaptive(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// CSR-I: equal nonzeros per warp; the starting row of every warp is
/// computed once on the device and kept in the matrix's structure cache.
/// Partial rows at chunk ends go through a carry-out fix-up instead of
/// atomics, so the result is bitwise reproducible.
template <Value T, Index I>
void spmv_csr_balanced(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// Merge path: equal shares of (rows + nonzeros) per block and per thread;
/// block coordinates computed once and cached; carry-outs fixed up within
/// the block (segmented scan) and across blocks (second kernel).
/// Deterministic.
template <Value T, Index I>
void spmv_csr_merge(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

/// Binned (csr_binned.cu): short rows in place with V lanes each (V from the
/// short rows' mean length); rows of up to 512 entries a warp each, and
/// longer rows split into 512-entry warp chunks whose partial sums the row's
/// last chunk adds in a fixed order, both from lists cached with the matrix.
/// One launch; deterministic.
template <Value T, Index I>
void spmv_csr_binned(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// Nonzero split: equal nonzeros per thread (csr.cu).
template <Value T, Index I>
void spmv_csr_split(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

/// Row-length statistics of a device CSR (CsrRowStats, cache_entries.hpp):
/// computed once on the device (one small kernel and a synchronous copy on
/// the default stream) and cached.
template <Value T, Index I>
CsrRowStats csr_row_stats(const Csr<T, I>& A);

/// Irregular rows for the Auto rules of CSR SpMV and SpMM: the longest row
/// above 8 × the mean + 64 (power-law matrices, a few dense rows), where only
/// splits by equal shares of nonzeros (merge path, merge-based) balance.
inline bool irregular_rows(double mean, std::int64_t max_len) {
  return static_cast<double>(max_len) > 8.0 * mean + 64.0;
}

/// Few rows for the Auto rules of CSR SpMV and SpMM: a warp per row fits one
/// wave of the current device (rows × 32 within its resident threads) and no
/// row is longer than 1024. Such products are latency bound, and a warp per
/// row has the shortest chain of dependent loads. False when no device is
/// usable (the rules are then asked about a host matrix).
bool few_rows(std::int64_t rows, std::int64_t max_len);

/// Few warps: `warps` of 32 lanes fit one wave of the current device (warps
/// × 32 within its resident threads), few_rows' test on a kernel's warps
/// (the row panel rule's, cuda/spmm.hpp). False when no device is usable.
bool few_warps(std::int64_t warps);

/// The L2 cache of the current device holds `bytes` (false without a device).
bool fits_l2(std::int64_t bytes);

/// few_rows, few_warps and fits_l2 on a given device (all zeros: none).
bool few_rows(const AutoDevice& device, std::int64_t rows, std::int64_t max_len);
bool few_warps(const AutoDevice& device, std::int64_t warps);
bool fits_l2(const AutoDevice& device, std::int64_t bytes);

/// The Auto rule for device CSR (documented in csr.cu and docs/architecture.md).
template <Value T, Index I>
Algorithm choose_csr(const Csr<T, I>& A);
/// The same rule from the counts it reads: rows, nonzeros, the longest row,
/// the empty rows, the matrix's bytes (values, column indices and row
/// pointers) and the bytes of one value, on the current device. The advisor
/// asks it through BackendModule::csr_spmv_auto, from host statistics.
Algorithm choose_csr_from(std::int64_t rows, std::int64_t nnz, std::int64_t max_len,
                          std::int64_t empty_rows, std::int64_t bytes, int value_bytes);

/// choose_csr_from on a given device: the rule itself, a pure function.
Algorithm choose_csr_on(const AutoDevice& device, std::int64_t rows, std::int64_t nnz,
                        std::int64_t max_len, std::int64_t empty_rows, std::int64_t bytes,
                        int value_bytes);

/// Lanes per row the adaptive kernel uses for a mean row length.
int adaptive_width(double mean_row_length);

// ---- COO (coo.cu) -----------------------------------------------------------

/// Nonzeros split evenly over warps; warp segmented reduction over runs of
/// equal row index; one atomicAdd per run (y is first scaled by beta). Works
/// for unsorted COO with duplicates. Not deterministic (atomics).
template <Value T, Index I>
void spmv_coo_segmented(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- SYM_CSR (sym_csr.cu) ------------------------------------------------------

/// y scaled by beta first, then V lanes per stored row (V = adaptive_width of
/// the mean stored row length): the row's sum by shuffles, the mirrors of
/// its off-diagonal entries added to y with atomics. Not deterministic.
template <Value T, Index I>
void spmv_sym_csr_atomic(T alpha, const SymCsr<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext&);

}  // namespace spx::cuda
