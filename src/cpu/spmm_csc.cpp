// CSC SpMM on the CPU: columns of A scatter rows of B into rows of C, so
// threads either keep private m×n accumulators (equal nonzeros per thread,
// summed in thread order: reproducible for a fixed thread count) or update C
// atomically.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "common/first_error.hpp"
#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::cpu {

template <Value T>
std::string private_dense_fits(std::int64_t rows, std::int64_t n) {
  const std::int64_t bytes = static_cast<std::int64_t>(omp_get_max_threads()) * rows * n *
                             static_cast<std::int64_t>(sizeof(T));
  if (bytes <= kPrivateBytesLimit) return {};
  return fmt::format("per-thread copies of C would take {} bytes (limit {})", bytes,
                     kPrivateBytesLimit);
}

template <Value T, Index I>
void spmm_csc_private(T alpha, const Csc<T, I>& A, DenseView<const T> Bv, T beta, DenseView<T> Cv,
                      const ExecContext&) {
  const std::int64_t m = A.rows(), k = A.cols(), nnz = A.nnz(), n = Bv.cols;
  const I* ptr = A.col_ptr().data();
  const I* row = A.row_idx().data();
  const T* val = A.values().data();
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  const int threads = threads_for(nnz * n);
  // acc holds one row-major m×n block per thread.
  std::vector<T> acc(static_cast<std::size_t>(threads) * m * n, T{0});
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    T* mine = acc.data() + static_cast<std::size_t>(t) * m * n;
    // Columns [c0, c1) hold this thread's equal share of the nonzeros.
    const auto first_col = [&](std::int64_t nz) {
      return std::upper_bound(ptr, ptr + k + 1, static_cast<I>(nz)) - ptr - 1;
    };
    const std::int64_t c0 = t == 0 ? 0 : first_col(nnz * t / threads);
    const std::int64_t c1 = t == threads - 1 ? k : first_col(nnz * (t + 1) / threads);
    for (std::int64_t c = c0; c < c1; ++c)
      for (I q = ptr[c]; q < ptr[c + 1]; ++q)
        axpy_row(n, val[q], B.row(c), B.cs, mine + static_cast<std::int64_t>(row[q]) * n);
  }
  // Sum the copies in thread order and combine with beta*C.
  detail::FirstError err;  // a thread's row sum may fail to allocate
#pragma omp parallel num_threads(threads)
  {
    std::vector<T> sum;
    err.run([&] { sum.resize(static_cast<std::size_t>(n)); });
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      if (err.failed()) continue;
      std::fill(sum.begin(), sum.end(), T{0});
      for (int t = 0; t < threads; ++t) {
        const T* part = acc.data() + (static_cast<std::size_t>(t) * m + i) * n;
        for (std::int64_t j = 0; j < n; ++j)
          sum[j] += part[j];
      }
      store_tile(C, i, 0, n, alpha, sum.data(), beta);
    }
  }
  err.rethrow();
}

template <Value T, Index I>
void spmm_csc_atomic(T alpha, const Csc<T, I>& A, DenseView<const T> Bv, T beta, DenseView<T> Cv,
                     const ExecContext&) {
  const std::int64_t k = A.cols(), n = Bv.cols;
  const I* ptr = A.col_ptr().data();
  const I* row = A.row_idx().data();
  const T* val = A.values().data();
  const Strided<const T> B = strided(Bv);
  const Strided<T> C = strided(Cv);
  scale_dense(beta, Cv);
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads_for(A.nnz() * n))
  for (std::int64_t c = 0; c < k; ++c) {
    const T* b = B.row(c);
    for (I q = ptr[c]; q < ptr[c + 1]; ++q) {
      const T v = alpha * val[q];
      T* out = C.row(row[q]);
      for (std::int64_t j = 0; j < n; ++j) {
        const T add = v * b[j * B.cs];
#pragma omp atomic
        out[j * C.cs] += add;
      }
    }
  }
}

template std::string private_dense_fits<float>(std::int64_t, std::int64_t);
template std::string private_dense_fits<double>(std::int64_t, std::int64_t);

#define SPX_INST(T, I)                                                                     \
  template void spmm_csc_private(T, const Csc<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                 const ExecContext&);                                      \
  template void spmm_csc_atomic(T, const Csc<T, I>&, DenseView<const T>, T, DenseView<T>,  \
                                const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cpu
