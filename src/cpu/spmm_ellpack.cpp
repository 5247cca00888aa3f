// ELLPACK-family SpMM on the CPU (ELL, SELL, HLL, HYB): the row driver of
// spmm_rows.hpp over each format's column-major groups of rows (PackedRows,
// ellpack.hpp). Only the true
// entries of a row are visited (row_len), so padding is never read. HYB: the
// ELL part writes alpha*A_ell*B + beta*C for every row, then the sorted COO
// part adds alpha*A_coo*B with the segmented COO kernel.
#include "core/instantiate.hpp"
#include "cpu/spmm_rows.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmm_ell_rows(T alpha, const Ell<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&) {
  spmm_rows(alpha, packed_rows(A), A.nnz(), B, beta, C);
}

template <Value T, Index I>
void spmm_sell_rows(T alpha, const Sell<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                    const ExecContext&) {
  spmm_rows(alpha, packed_rows(A), A.nnz(), B, beta, C);
}

template <Value T, Index I>
void spmm_hll_rows(T alpha, const Hll<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext&) {
  spmm_rows(alpha, packed_rows(A), A.nnz(), B, beta, C);
}

template <Value T, Index I>
void spmm_hyb_rows(T alpha, const Hyb<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                   const ExecContext& ctx) {
  spmm_ell_rows<T, I>(alpha, A.ell(), B, beta, C, ctx);
  if (A.coo().nnz() > 0) spmm_coo_segments<T, I>(alpha, A.coo(), B, T{1}, C, ctx);
}

#define SPX_INST(T, I)                                                                    \
  template void spmm_ell_rows(T, const Ell<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                              const ExecContext&);                                        \
  template void spmm_sell_rows(T, const Sell<T, I>&, DenseView<const T>, T, DenseView<T>, \
                               const ExecContext&);                                       \
  template void spmm_hll_rows(T, const Hll<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                              const ExecContext&);                                        \
  template void spmm_hyb_rows(T, const Hyb<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                              const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
