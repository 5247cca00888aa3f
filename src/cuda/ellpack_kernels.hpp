// Launchers of the CUDA SpMV kernels for the ELLPACK family and its
// relatives: ELL, SELL-C-σ / SELL-P, HLL, JAD and HYB (src/cuda/ell.cu,
// sell.cu, hll.cu, jad.cu, hyb.cu) and their Auto rules, registered in
// src/cuda/register_ellpack.cu. Same contract as kernels.hpp: a
// launcher sees a device matrix with rows > 0, nnz > 0 and alpha != 0,
// enqueues its kernels on ctx.stream without synchronizing, and never reads y
// when beta == 0. No fmt here: .cu files include this header.
#pragma once

#include <cstdint>

#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx::cuda {

// ---- ELL (ell.cu) -------------------------------------------------------------

/// V = 1 (ThreadPerRow) or 2 (TwoThreadsPerRow) threads per row, reading
/// the column-major arrays (coalesced across the warp's consecutive rows) up
/// to the row's length: padding is never read. With two threads each takes
/// alternate entries of the row; the partial sums are added in a fixed order
/// (deterministic).
template <int V, Value T, Index I>
void spmv_ell_rows(T alpha, const Ell<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

/// The Auto rule shared by ELL, HLL and HYB's ELL part: TwoThreadsPerRow when
/// rows are long (mean > 24 entries) or when the matrix has fewer rows than
/// the GPU holds resident threads and rows of more than 8 entries; else
/// ThreadPerRow (documented in ell.cu and docs/architecture.md).
Algorithm choose_ellpack_threads(std::int64_t rows, std::int64_t nnz);

/// choose_ellpack_threads for an ELL or HLL matrix.
template <class M>
Algorithm choose_ellpack(const M& A) {
  return choose_ellpack_threads(A.rows(), A.nnz());
}

// ---- SELL-C-σ / SELL-P (sell.cu) ----------------------------------------------

/// One thread per stored row; results go to y[perm[i]].
template <Value T, Index I>
void spmv_sell_thread(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// SELL-P: V lanes per stored row, V = the format's threads_per_row when it
/// is a power of two up to 32 (the next power of two, at most 32, otherwise);
/// partial sums combined in shared memory in a fixed order.
template <Value T, Index I>
void spmv_sell_threads(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext&);
/// Lanes per row the SELL-P kernel uses for a format built with
/// `threads_per_row`.
int sell_lanes(int threads_per_row);
/// BackendModule::spmv_runs_as: the ThreadsPerRow SpMV of SELL, SELL-LP and
/// SELL-pack with one lane a row (sell_lanes(options.threads_per_row) == 1,
/// the default) launches their ThreadPerRow kernel; every other algorithm
/// runs its own.
Algorithm sell_family_runs_as(Format format, Algorithm algorithm, const ConvertOptions& options);

/// Auto for SELL: ThreadsPerRow when the format was built for more than one
/// thread per row (threads_per_row > 1), ThreadPerRow otherwise.
template <Value T, Index I>
Algorithm choose_sell(const Sell<T, I>& A);

// ---- SELL-LP (sell_lp.cu): SELL with reduced-precision values -------------------

/// One thread per stored row; values widened to T; results go to y[perm[i]].
template <Value T, Index I>
void spmv_sell_lp_thread(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext&);
/// SELL-P geometry (sell_lanes(threads_per_row) lanes per row), values widened to T.
template <Value T, Index I>
void spmv_sell_lp_threads(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext&);
/// Auto for SELL-LP: SELL's rule.
template <Value T, Index I>
Algorithm choose_sell_lp(const SellLp<T, I>& A);

/// A copy of the SELL column indices with every padding entry set to -1, as
/// cuSPARSE's sliced ELL expects (`out` holds A.stored() entries, device).
/// Enqueued on `stream`.
template <Value T, Index I>
void sell_cusparse_columns(const Sell<T, I>& A, I* out, CUstream_st* stream);

// ---- SELL-pack (sell_pack.cu) ----------------------------------------------------

/// SELL's kernels on SELL-pack: one thread (ThreadPerRow) or V =
/// sell_lanes(threads_per_row) lanes (ThreadsPerRow) per stored row, the
/// columns decoded from the slice's 16-bit offsets or read from its full
/// indices; results go to y[perm[i]].
template <Value T, Index I>
void spmv_sell_pack_thread(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                           const ExecContext&);
template <Value T, Index I>
void spmv_sell_pack_threads(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                            const ExecContext&);
/// Auto for SELL-pack: SELL's rule (ThreadsPerRow when threads_per_row > 1).
template <Value T, Index I>
Algorithm choose_sell_pack(const SellPack<T, I>& A);

// ---- HLL (hll.cu) ---------------------------------------------------------------

/// As spmv_ell_rows, V = 1 or 2 threads per row, with the hacks' layout.
/// Auto: choose_ellpack on the mean row length.
template <int V, Value T, Index I>
void spmv_hll_rows(T alpha, const Hll<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- JAD (jad.cu) ---------------------------------------------------------------

/// One thread per stored (permuted) row over the jagged diagonals; results go
/// to y[perm[i]].
template <Value T, Index I>
void spmv_jad(T alpha, const Jad<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

// ---- HYB (hyb.cu) ---------------------------------------------------------------

/// The ELL part (y = alpha*A_ell*x + beta*y, every row written), then the COO
/// part's segmented kernel adding alpha*A_coo*x, in the same stream. Not
/// deterministic (the COO part adds with atomics).
template <Value T, Index I>
void spmv_hyb(T alpha, const Hyb<T, I>& A, const T* x, T beta, T* y, const ExecContext&);

}  // namespace spx::cuda
