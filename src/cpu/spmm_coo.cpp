// COO SpMM on the CPU. Sorted COO: equal shares of nonzeros per thread, each
// share's ends moved to row boundaries so that every row belongs to one
// thread (no carries). Unsorted COO: atomic updates of C.
// Both first scale C by beta, since rows without entries appear nowhere in
// the arrays.
#include <algorithm>
#include <vector>

#include "common/first_error.hpp"
#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmm_coo_segments(T alpha, const Coo<T, I>& A, DenseView<const T> Bv, T beta, DenseView<T> Cv,
                       const ExecContext&) {
  const std::int64_t nnz = A.nnz(), n = Bv.cols;
  const I* row = A.row_idx().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  scale_dense(beta, Cv);
  const int threads = threads_for(nnz * n);
  // Share boundaries, each moved forward to the first entry of a row.
  std::vector<std::int64_t> bound(threads + 1, nnz);
  for (int t = 0; t < threads; ++t) {
    std::int64_t b = nnz * t / threads;
    while (b > 0 && b < nnz && row[b] == row[b - 1])
      ++b;
    bound[t] = b;
  }
  detail::FirstError err;  // a thread's accumulator may fail to allocate
#pragma omp parallel num_threads(threads)
  err.run([&] {
    const int t = omp_get_thread_num();
    std::vector<T> acc(n);
    // Consume the share row by row: its rows are ours alone.
    for (std::int64_t k = bound[t]; k < bound[t + 1];) {
      const I r = row[k];
      std::fill(acc.begin(), acc.end(), T{0});
      for (; k < bound[t + 1] && row[k] == r; ++k)
        axpy_row(n, val[k], B.row(col[k]), B.cs, acc.data());
      add_row(C, r, n, alpha, acc.data());
    }
  });
  err.rethrow();
}

template <Value T, Index I>
void spmm_coo_atomic(T alpha, const Coo<T, I>& A, DenseView<const T> Bv, T beta, DenseView<T> Cv,
                     const ExecContext&) {
  const std::int64_t nnz = A.nnz(), n = Bv.cols;
  const I* row = A.row_idx().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  scale_dense(beta, Cv);
#pragma omp parallel for schedule(static) num_threads(threads_for(nnz* n))
  for (std::int64_t k = 0; k < nnz; ++k) {
    const T v = alpha * val[k];
    const T* b = B.row(col[k]);
    T* c = C.row(row[k]);
    for (std::int64_t j = 0; j < n; ++j) {
      const T add = v * b[j * B.cs];
#pragma omp atomic
      c[j * C.cs] += add;
    }
  }
}

#define SPX_INST(T, I)                                                                      \
  template void spmm_coo_segments(T, const Coo<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                  const ExecContext&);                                      \
  template void spmm_coo_atomic(T, const Coo<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                                const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
