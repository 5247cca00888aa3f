// CSR SpMV on the CPU: merge-path partitioning (Merrill and Garland). Every
// thread takes an equal share of the merge of row ends and nonzeros, so a
// single huge row is split across threads instead of serializing one of them.
#include <algorithm>
#include <vector>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_csr_merge(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t m = A.rows(), nnz = A.nnz();
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const std::int64_t total = m + nnz;
  const int threads = threads_for(total);
  const std::int64_t share = (total + threads - 1) / threads;
  std::vector<std::int64_t> carry_row(threads, m);
  std::vector<T> carry_val(threads, T{0});

#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const MergeCoord begin = merge_coord(std::min(total, t * share), ptr, m, nnz);
    const MergeCoord end = merge_coord(std::min(total, (t + 1) * share), ptr, m, nnz);
    std::int64_t k = begin.nz;
    // Consume whole rows (the first may have been started by the previous
    // thread: its part arrives as that thread's carry-out).
    for (std::int64_t r = begin.row; r < end.row; ++r) {
      T sum = 0;
      for (; k < ptr[r + 1]; ++k)
        sum += val[k] * x[col[k]];
      axpby_store(y, r, alpha, sum, beta);
    }
    // Save the carry-out: the partial sum of the row this share ends inside.
    T sum = 0;
    for (; k < end.nz; ++k)
      sum += val[k] * x[col[k]];
    carry_row[t] = end.row;
    carry_val[t] = sum;
  }
  // Fix up carry-outs, in thread order (deterministic).
  for (int t = 0; t < threads; ++t)
    if (carry_row[t] < m) y[carry_row[t]] += alpha * carry_val[t];
}

#define SPX_INST(T, I) \
  template void spmv_csr_merge(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
