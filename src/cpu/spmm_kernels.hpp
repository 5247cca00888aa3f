// Declarations of the OpenMP SpMM kernels (C = alpha*A*B + beta*C), one group
// per format, defined in src/cpu/spmm_<format>.cpp and registered in
// src/cpu/register.cpp; plus the strided dense access they share.
#pragma once

#include <cstdint>

#include "spx/core/view.hpp"
#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx::cpu {

/// A dense matrix as (pointer, row stride, column stride): element (i, j) at
/// data[i*rs + j*cs]. Row-major: (ld, 1); column-major: (1, ld).
template <class T>
struct Strided {
  T* data;
  std::int64_t rs;
  std::int64_t cs;
  T& operator()(std::int64_t i, std::int64_t j) const { return data[i * rs + j * cs]; }
  /// Row i as a pointer; entries are cs apart.
  T* row(std::int64_t i) const { return data + i * rs; }
};

template <class T>
Strided<T> strided(DenseView<T> v) {
  return v.layout == Layout::RowMajor ? Strided<T>{v.data, v.ld, 1} : Strided<T>{v.data, 1, v.ld};
}

/// acc[0..n) += v * b[j*stride]; contiguous (vectorized) when stride = 1.
template <class T>
inline void axpy_row(std::int64_t n, T v, const T* b, std::int64_t stride, T* acc) {
  if (stride == 1) {
#pragma omp simd
    for (std::int64_t j = 0; j < n; ++j)
      acc[j] += v * b[j];
  } else {
    for (std::int64_t j = 0; j < n; ++j)
      acc[j] += v * b[j * stride];
  }
}

/// C(i, j0..j0+w) = alpha*t + beta*C(i, j0..j0+w), not reading C when beta =
/// 0 (a whole row: j0 = 0, w = n).
template <class T>
inline void store_tile(const Strided<T>& C, std::int64_t i, std::int64_t j0, std::int64_t w,
                       T alpha, const T* t, T beta) {
  T* c = C.row(i) + j0 * C.cs;
  const std::int64_t s = C.cs;
  if (beta == T{0}) {
    for (std::int64_t j = 0; j < w; ++j)
      c[j * s] = alpha * t[j];
  } else {
    for (std::int64_t j = 0; j < w; ++j)
      c[j * s] = alpha * t[j] + beta * c[j * s];
  }
}

/// C(i, :) += alpha*acc.
template <class T>
inline void add_row(const Strided<T>& C, std::int64_t i, std::int64_t n, T alpha, const T* acc) {
  T* c = C.row(i);
  for (std::int64_t j = 0; j < n; ++j)
    c[j * C.cs] += alpha * acc[j];
}

/// C = beta*C (beta = 0 writes zeros without reading C).
template <class T>
void scale_dense(T beta, DenseView<T> C);

// CSR (spmm_csr.cpp): merge-path shares of rows + nonzeros, carry-out rows.
template <Value T, Index I>
void spmm_csr_merge(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                    const ExecContext&);

// COO (spmm_coo.cpp)
template <Value T, Index I>
void spmm_coo_segments(T alpha, const Coo<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&);
template <Value T, Index I>
void spmm_coo_atomic(T alpha, const Coo<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                     const ExecContext&);

// CSC (spmm_csc.cpp)
template <Value T, Index I>
void spmm_csc_private(T alpha, const Csc<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                      const ExecContext&);
template <Value T, Index I>
void spmm_csc_atomic(T alpha, const Csc<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                     const ExecContext&);

// The other formats: a thread per block of stored rows through the row driver
// of spmm_rows.hpp (spmm_ellpack.cpp: ELL, SELL, HLL, HYB; spmm_diag.cpp: DIA,
// HDI, JAD), and a thread per block row for BCSR (spmm_bcsr.cpp).
template <Value T, Index I>
void spmm_ell_rows(T alpha, const Ell<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
template <Value T, Index I>
void spmm_sell_rows(T alpha, const Sell<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                    const ExecContext&);
// SELL-LP (sell_lp.cpp): the row driver over SELL's slices, values widened to T.
template <Value T, Index I>
void spmm_sell_lp_rows(T alpha, const SellLp<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&);
template <Value T, Index I>
void spmm_hll_rows(T alpha, const Hll<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
template <Value T, Index I>
void spmm_hyb_rows(T alpha, const Hyb<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
template <Value T, Index I>  // sell_pack.cpp
void spmm_sell_pack_rows(T alpha, const SellPack<T, I>& A, DenseView<const T> B, T beta,
                         DenseView<T> C, const ExecContext&);
template <Value T, Index I>
void spmm_dia_rows(T alpha, const Dia<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
template <Value T, Index I>
void spmm_hdi_rows(T alpha, const Hdi<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
// DIA-LP (spmm_diag.cpp): DIA's rows, values widened to T.
template <Value T, Index I>
void spmm_dia_lp_rows(T alpha, const DiaLp<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                      const ExecContext&);
template <Value T, Index I>
void spmm_jad_rows(T alpha, const Jad<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&);
template <Value T, Index I>
void spmm_bcsr_block_rows(T alpha, const Bcsr<T, I>& A, DenseView<const T> B, T beta,
                          DenseView<T> C, const ExecContext&);

// SYM_CSR (sym_csr.cpp): the SpMV scheme with n accumulators per row.
template <Value T, Index I>
void spmm_sym_csr_rows(T alpha, const SymCsr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&);

// SYM_DIA (sym_dia.cpp): the row driver over the stored and mirrored diagonals.
template <Value T, Index I>
void spmm_sym_dia_rows(T alpha, const SymDia<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                       const ExecContext&);

/// Empty when per-thread m×n copies of C fit under kPrivateBytesLimit.
template <Value T>
std::string private_dense_fits(std::int64_t rows, std::int64_t n);

}  // namespace spx::cpu
