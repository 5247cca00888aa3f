// SpMV of the ELLPACK family on the CPU (ELL, SELL, HLL, HYB); the inner
// product, the layout and the group driver are in ellpack.hpp.
//  - ELL: threads take blocks of kEllBlock consecutive rows; a block is
//    processed in lockstep over its columns, up to the block's longest row,
//    so the padding beyond it is never read.
//  - SELL-C-σ / SELL-P: threads take whole slices; the C rows of a slice are
//    processed in lockstep over the slice's columns, the loop over the C rows
//    vectorized (see ellpack.hpp for the SIMD widths and the choice of C: any
//    C runs; a multiple of the SIMD lanes, like the default 32, leaves no
//    scalar remainder). Results go to y[perm[i]]: the caller sees the
//    original row order.
//  - HLL: threads take whole hacks, processed like SELL's slices (each hack
//    with the stride of its own row count).
//  - HYB: the ELL part's kernel writes y = alpha*A_ell*x + beta*y for every
//    row (including rows with no ELL entries, K = 0 included), then the COO
//    part's segmented kernel adds alpha*A_coo*x (its entries are sorted by
//    row). Correct for any split: K = 0 (all COO) or an empty COO part.
#include "cpu/ellpack.hpp"
#include "core/instantiate.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_ell_rows(T alpha, const Ell<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t rows = A.rows();
  const T* val = A.values().data();
  const I* col = A.col_idx().data();
  const I* len = A.row_len().data();
  const std::int64_t blocks = (rows + kEllBlock - 1) / kEllBlock;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t first = blk * kEllBlock;
    ell_group_spmv<T, I>(alpha, val + first, col + first, rows, std::min(kEllBlock, rows - first),
                         len + first, x, beta, y, [first](std::int64_t r) { return first + r; });
  }
}

template <Value T, Index I>
void spmv_sell_rows(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  spmv_groups<true>(alpha, packed_rows(A), A.num_slices(), A.nnz(), x, beta, y);
}

template <Value T, Index I>
void spmv_hll_rows(T alpha, const Hll<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  spmv_groups<false>(alpha, packed_rows(A), A.num_hacks(), A.nnz(), x, beta, y);
}

template <Value T, Index I>
void spmv_hyb_rows(T alpha, const Hyb<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  spmv_ell_rows<T, I>(alpha, A.ell(), x, beta, y, ctx);
  if (A.coo().nnz() > 0) spmv_coo_segments<T, I>(alpha, A.coo(), x, T{1}, y, ctx);
}

#define SPX_INST(T, I)                                                                     \
  template void spmv_ell_rows(T, const Ell<T, I>&, const T*, T, T*, const ExecContext&);   \
  template void spmv_sell_rows(T, const Sell<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_hll_rows(T, const Hll<T, I>&, const T*, T, T*, const ExecContext&);   \
  template void spmv_hyb_rows(T, const Hyb<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
