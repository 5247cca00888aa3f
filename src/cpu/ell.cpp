// ELL SpMV on the CPU: threads take blocks of kEllBlock consecutive rows; a
// block is processed in lockstep over its columns (see ellpack.hpp), up to
// the block's longest row, so the padding beyond it is never read.
#include "core/instantiate.hpp"
#include "cpu/ellpack.hpp"
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

#define SPX_INST(T, I) \
  template void spmv_ell_rows(T, const Ell<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
