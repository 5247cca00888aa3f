// CSC SpMV on the CPU: columns scatter into y, so threads either keep private
// copies of y (equal nonzeros per thread, summed in thread order) or update y
// atomically.
#include <algorithm>

#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::cpu {

template <Value T, Index I>
void spmv_csc_private(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t n = A.cols(), nnz = A.nnz();
  const I* ptr = A.col_ptr().data();
  const I* row = A.row_idx().data();
  const T* val = A.values().data();
  const int threads = threads_for(nnz);
  private_scatter<T>(A.rows(), threads, alpha, beta, y, [&](int t, T* acc) {
    // Columns [c0, c1) hold this thread's equal share of the nonzeros.
    const auto first_col = [&](std::int64_t k) {
      return std::upper_bound(ptr, ptr + n + 1, static_cast<I>(k)) - ptr - 1;
    };
    const std::int64_t c0 = t == 0 ? 0 : first_col(nnz * t / threads);
    const std::int64_t c1 = t == threads - 1 ? n : first_col(nnz * (t + 1) / threads);
    for (std::int64_t c = c0; c < c1; ++c) {
      const T xc = x[c];
      for (I k = ptr[c]; k < ptr[c + 1]; ++k)
        acc[row[k]] += val[k] * xc;
    }
  });
}

template <Value T, Index I>
void spmv_csc_atomic(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  const std::int64_t n = A.cols();
  const I* ptr = A.col_ptr().data();
  const I* row = A.row_idx().data();
  const T* val = A.values().data();
  scale(beta, y, A.rows());
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads_for(A.nnz()))
  for (std::int64_t c = 0; c < n; ++c) {
    const T xc = alpha * x[c];
    for (I k = ptr[c]; k < ptr[c + 1]; ++k) {
      const T v = val[k] * xc;
#pragma omp atomic
      y[row[k]] += v;
    }
  }
}

#define SPX_INST(T, I)                                                                      \
  template void spmv_csc_private(T, const Csc<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_csc_atomic(T, const Csc<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
