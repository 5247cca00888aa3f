// HYB (Bell and Garland; survey §4.5) SpMV on the GPU: the ELL part's kernel
// writes y = alpha*A_ell*x + beta*y for every row (rows without ELL entries
// and K = 0 included: beta is applied there and only there), then the COO
// part's segmented kernel (coo.cu) adds alpha*A_coo*x, in the same stream so
// that it runs after the ELL part. It is called with beta = 1, which makes it
// skip its own scaling of y: no change to the COO kernel was needed. An empty
// COO part (K = the longest row) launches nothing. The ELL part runs one or
// two threads per row by the ELL Auto rule applied to the ELL part. Not
// deterministic: the COO kernel adds its run sums with atomics.
#include <cuda_runtime.h>

#include "core/instantiate.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/kernels.hpp"

namespace spx::cuda {

template <Value T, Index I>
void spmv_hyb(T alpha, const Hyb<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  const Ell<T, I>& ell = A.ell();
  if (choose_ellpack(ell) == Algorithm::TwoThreadsPerRow) {
    spmv_ell_rows<2>(alpha, ell, x, beta, y, ctx);
  } else {
    spmv_ell_rows<1>(alpha, ell, x, beta, y, ctx);
  }
  if (A.coo().nnz() > 0) spmv_coo_segmented(alpha, A.coo(), x, T{1}, y, ctx);
}

#define SPX_INST(T, I) \
  template void spmv_hyb(T, const Hyb<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
