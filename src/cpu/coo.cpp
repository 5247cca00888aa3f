// COO SpMV on the CPU. Sorted COO: equal shares of nonzeros per thread, the
// two boundary rows of each share saved as carry-outs and fixed up in order.
// Unsorted COO: per-thread private copies of y (or atomics when those copies
// would not fit in memory).
#include <vector>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_coo_segments(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t nnz = A.nnz();
  const I* row = A.row_idx().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  scale(beta, y, A.rows());  // rows without entries keep beta*y
  const int threads = threads_for(nnz);
  const std::int64_t share = (nnz + threads - 1) / threads;
  struct Carry {
    std::int64_t row = -1;
    T sum = 0;
  };
  std::vector<Carry> first(threads), last(threads);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const std::int64_t b = std::min(nnz, t * share), e = std::min(nnz, (t + 1) * share);
    std::int64_t k = b;
    // The first and last segments of a share may continue in a neighbour's
    // share: keep them as carries; segments strictly inside are ours alone.
    while (k < e) {
      const std::int64_t segment_begin = k;
      const I r = row[k];
      T sum = 0;
      for (; k < e && row[k] == r; ++k)
        sum += val[k] * x[col[k]];
      const bool at_begin = segment_begin == b && b > 0 && row[b - 1] == r;
      const bool at_end = k == e && e < nnz && row[e] == r;
      if (at_begin) {
        first[t] = {r, sum};
      } else if (at_end) {
        last[t] = {r, sum};
      } else {
        y[r] += alpha * sum;
      }
    }
  }
  for (int t = 0; t < threads; ++t) {
    if (first[t].row >= 0) y[first[t].row] += alpha * first[t].sum;
    if (last[t].row >= 0) y[last[t].row] += alpha * last[t].sum;
  }
}

template <Value T, Index I>
void spmv_coo_private(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t nnz = A.nnz();
  const I* row = A.row_idx().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const int threads = threads_for(nnz);
  const std::int64_t share = (nnz + threads - 1) / threads;
  private_scatter<T>(A.rows(), threads, alpha, beta, y, [&](int t, T* acc) {
    const std::int64_t e = std::min(nnz, (t + 1) * share);
    for (std::int64_t k = std::min(nnz, t * share); k < e; ++k)
      acc[row[k]] += val[k] * x[col[k]];
  });
}

template <Value T, Index I>
void spmv_coo_atomic(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t nnz = A.nnz();
  const I* row = A.row_idx().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  scale(beta, y, A.rows());
#pragma omp parallel for schedule(static) num_threads(threads_for(nnz))
  for (std::int64_t k = 0; k < nnz; ++k) {
    const T v = alpha * val[k] * x[col[k]];
#pragma omp atomic
    y[row[k]] += v;
  }
}

#define SPX_INST(T, I)                                                                       \
  template void spmv_coo_segments(T, const Coo<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_coo_private(T, const Coo<T, I>&, const T*, T, T*, const ExecContext&);  \
  template void spmv_coo_atomic(T, const Coo<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
