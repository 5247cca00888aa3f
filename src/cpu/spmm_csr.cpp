// CSR SpMM on the CPU: merge-path partitioning (Merrill and Garland), as for
// SpMV, with a row of C in place of an entry of y. Every thread takes an
// equal share of the merge of row ends and nonzeros, so one long row is split
// across threads; the partial row a share ends inside is its carry-out (n
// values), added after the parallel region in thread order.
//
// Row-major B and C: the inner loop runs along a row of B and of the
// accumulator and vectorizes. Column-major B or C: the same loops with a
// stride (correct, slower).
#include <algorithm>
#include <vector>

#include "common/first_error.hpp"
#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmm_csr_merge(T alpha, const Csr<T, I>& A, DenseView<const T> Bv, T beta, DenseView<T> Cv,
                    const ExecContext&) {
  const std::int64_t m = A.rows(), nnz = A.nnz(), n = Bv.cols;
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const T* val = A.values().data();
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  const std::int64_t total = m + nnz;
  const int threads = threads_for(nnz * n + m);
  const std::int64_t share = (total + threads - 1) / threads;
  std::vector<std::int64_t> carry_row(threads, m);
  std::vector<T> carry(static_cast<std::size_t>(threads) * n, T{0});

  detail::FirstError err;  // a thread's accumulator may fail to allocate
#pragma omp parallel num_threads(threads)
  err.run([&] {
    const int t = omp_get_thread_num();
    const MergeCoord begin = merge_coord(std::min(total, t * share), ptr, m, nnz);
    const MergeCoord end = merge_coord(std::min(total, (t + 1) * share), ptr, m, nnz);
    std::vector<T> acc(n);
    std::int64_t k = begin.nz;
    // Consume whole rows (the first may have been started by the previous
    // thread: its part arrives as that thread's carry-out).
    for (std::int64_t r = begin.row; r < end.row; ++r) {
      std::fill(acc.begin(), acc.end(), T{0});
      for (; k < ptr[r + 1]; ++k)
        axpy_row(n, val[k], B.row(col[k]), B.cs, acc.data());
      store_tile(C, r, 0, n, alpha, acc.data(), beta);
    }
    // Save the carry-out: the partial row this share ends inside.
    T* out = carry.data() + static_cast<std::size_t>(t) * n;
    for (; k < end.nz; ++k)
      axpy_row(n, val[k], B.row(col[k]), B.cs, out);
    carry_row[t] = end.row;
  });
  err.rethrow();
  // Fix up carry-outs, in thread order (deterministic).
  for (int t = 0; t < threads; ++t)
    if (carry_row[t] < m)
      add_row(C, carry_row[t], n, alpha, carry.data() + static_cast<std::size_t>(t) * n);
}

template <class T>
void scale_dense(T beta, DenseView<T> Cv) {
  if (beta == T{1}) return;
  const Strided<T> C = strided(Cv);
  const std::int64_t m = Cv.rows, n = Cv.cols;
#pragma omp parallel for schedule(static) num_threads(threads_for(m* n, 1 << 16))
  for (std::int64_t i = 0; i < m; ++i) {
    T* c = C.row(i);
    for (std::int64_t j = 0; j < n; ++j)
      c[j * C.cs] = beta == T{0} ? T{0} : beta * c[j * C.cs];
  }
}

template void scale_dense(float, DenseView<float>);
template void scale_dense(double, DenseView<double>);

#define SPX_INST(T, I)                                                                   \
  template void spmm_csr_merge(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                               const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
