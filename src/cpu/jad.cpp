// JAD SpMV on the CPU: threads take blocks of consecutive stored rows. A block
// walks the jagged diagonals while they still reach it (diagonal d covers the
// stored rows [0, jd_ptr[d+1] - jd_ptr[d])), adding each diagonal's
// contiguous run to the block's accumulators: the loop over the rows is
// innermost and vectorizes. There is no padding. Results go to y[perm[i]].
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

namespace {
constexpr std::int64_t kJadBlock = 256;
}

template <Value T, Index I>
void spmv_jad_rows(T alpha, const Jad<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t rows = A.rows(), diagonals = A.num_diagonals();
  const T* val = A.values().data();
  const I* col = A.col_idx().data();
  const I* jd = A.jd_ptr().data();
  const I* perm = A.perm().data();
  const std::int64_t blocks = (rows + kJadBlock - 1) / kJadBlock;
  // Longest rows first: dynamic scheduling balances the decreasing work.
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_for(A.nnz() + rows))
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t b = blk * kJadBlock, e = std::min(rows, b + kJadBlock);
    T acc[kJadBlock];
    std::fill_n(acc, e - b, T{0});
    for (std::int64_t d = 0; d < diagonals; ++d) {
      const std::int64_t reach = std::int64_t{jd[d + 1]} - jd[d];
      if (reach <= b) break;  // diagonals only get shorter
      const std::int64_t hi = std::min(e, reach);
      const T* __restrict v = val + jd[d];
      const I* __restrict c = col + jd[d];
      for (std::int64_t i = b; i < hi; ++i)
        acc[i - b] += v[i] * x[c[i]];
    }
    for (std::int64_t i = b; i < e; ++i)
      axpby_store(y, perm[i], alpha, acc[i - b], beta);
  }
}

#define SPX_INST(T, I) \
  template void spmv_jad_rows(T, const Jad<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
