// SELL-C-σ / SELL-P SpMV on the CPU: threads take whole slices; the C rows of
// a slice are processed in lockstep over the slice's columns, the loop over
// the C rows vectorized (see ellpack.hpp for the SIMD widths and the choice
// of C: any C runs; a multiple of the SIMD lanes, like the default 32, leaves
// no scalar remainder). Results go to y[perm[i]]: the caller sees the
// original row order.
#include "core/instantiate.hpp"
#include "cpu/ellpack.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_sell_rows(T alpha, const Sell<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t rows = A.rows(), C = A.slice_size();
  const T* val = A.values().data();
  const I* col = A.col_idx().data();
  const I* len = A.row_len().data();
  const I* slice_ptr = A.slice_ptr().data();
  const I* perm = A.perm().empty() ? nullptr : A.perm().data();
  // Chunks of about kEllBlock rows keep the scheduling overhead small.
  const std::int64_t chunk = std::max<std::int64_t>(1, kEllBlock / C);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t s = 0; s < A.num_slices(); ++s) {
    const std::int64_t first = s * C, off = slice_ptr[s];
    const auto row_of = [first, perm](std::int64_t r) -> std::int64_t {
      return perm != nullptr ? perm[first + r] : first + r;
    };
    ell_group_spmv<T, I>(alpha, val + off, col + off, C, std::min(C, rows - first), len + first, x,
                         beta, y, row_of);
  }
}

#define SPX_INST(T, I) \
  template void spmv_sell_rows(T, const Sell<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
