// HYB SpMV on the CPU: the ELL part's kernel writes y = alpha*A_ell*x + beta*y
// for every row (including rows with no ELL entries, K = 0 included), then
// the COO part's segmented kernel adds alpha*A_coo*x (its entries are sorted
// by row). Correct for any split: K = 0 (all COO) or an empty COO part.
#include "core/instantiate.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_hyb_rows(T alpha, const Hyb<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  spmv_ell_rows<T, I>(alpha, A.ell(), x, beta, y, ctx);
  if (A.coo().nnz() > 0) spmv_coo_segments<T, I>(alpha, A.coo(), x, T{1}, y, ctx);
}

#define SPX_INST(T, I) \
  template void spmv_hyb_rows(T, const Hyb<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
