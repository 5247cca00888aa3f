// HLL SpMV on the CPU: threads take whole hacks; the rows of a hack are
// processed in lockstep over the hack's columns (see ellpack.hpp).
#include "core/instantiate.hpp"
#include "cpu/ellpack.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_hll_rows(T alpha, const Hll<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t rows = A.rows(), H = A.hack_size();
  const T* val = A.values().data();
  const I* col = A.col_idx().data();
  const I* len = A.row_len().data();
  const I* hack_ptr = A.hack_ptr().data();
  // Chunks of about kEllBlock rows keep the scheduling overhead small.
  const std::int64_t chunk = std::max<std::int64_t>(1, kEllBlock / H);
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t h = 0; h < A.num_hacks(); ++h) {
    const std::int64_t first = h * H, n = std::min(H, rows - first), off = hack_ptr[h];
    ell_group_spmv<T, I>(alpha, val + off, col + off, n, n, len + first, x, beta, y,
                         [first](std::int64_t r) { return first + r; });
  }
}

#define SPX_INST(T, I) \
  template void spmv_hll_rows(T, const Hll<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
