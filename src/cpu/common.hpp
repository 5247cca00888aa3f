// Helpers shared by the OpenMP kernels.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/merge_path.hpp"
#include "spx/core/types.hpp"

namespace spx::cpu {

/// Threads worth using for `work` units of work (at least `grain` each).
inline int threads_for(std::int64_t work, std::int64_t grain = 4096) {
  const std::int64_t useful = std::max<std::int64_t>(1, work / grain);
  return static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), useful));
}

/// y[r] = alpha*sum + beta*y[r], not reading y when beta = 0.
template <Value T>
inline void axpby_store(T* y, std::int64_t r, T alpha, T sum, T beta) {
  y[r] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[r];
}

/// A point of the merge path of a CSR's row ends and nonzero indices: `row`
/// rows and `nz` nonzeros are consumed before it.
struct MergeCoord {
  std::int64_t row;
  std::int64_t nz;
};

/// The point where diagonal d (0 <= d <= m + nnz) crosses the merge path of
/// the row ends ptr[1..m] and the nonzero indices 0..nnz-1 (merge_path_rows).
template <Index I>
inline MergeCoord merge_coord(std::int64_t d, const I* ptr, std::int64_t m, std::int64_t nnz) {
  const std::int64_t row = spx::detail::merge_path_rows(
      d, [ptr](std::int64_t i) { return ptr[i + 1]; }, m, 0, nnz);
  return {row, d - row};
}

/// y = beta*y in parallel (beta = 0 writes zeros).
template <Value T>
void scale(T beta, T* y, std::int64_t n) {
  if (beta == T{1}) return;
#pragma omp parallel for schedule(static) if (n > 65536)
  for (std::int64_t i = 0; i < n; ++i)
    y[i] = beta == T{0} ? T{0} : beta * y[i];
}

/// Per-thread private copies of y: allowed when threads × rows × sizeof(T)
/// stays under this many bytes.
inline constexpr std::int64_t kPrivateBytesLimit = std::int64_t{1} << 30;

template <Value T>
std::string private_fits(std::int64_t rows) {
  const std::int64_t bytes = static_cast<std::int64_t>(omp_get_max_threads()) * rows *
                             static_cast<std::int64_t>(sizeof(T));
  if (bytes <= kPrivateBytesLimit) return {};
  return fmt::format("per-thread copies of y would take {} bytes (limit {})", bytes,
                     kPrivateBytesLimit);
}

/// Scatter product with per-thread private accumulators: `scatter(t, acc)`
/// adds thread t's share of A*x into acc (length rows, zeroed). The copies
/// are then summed in thread order, so the result is reproducible for a fixed
/// thread count.
template <Value T, class Scatter>
void private_scatter(std::int64_t rows, int threads, T alpha, T beta, T* y, Scatter&& scatter) {
  std::vector<T> acc(static_cast<std::size_t>(threads) * rows, T{0});
#pragma omp parallel num_threads(threads)
  {
    scatter(omp_get_thread_num(),
            acc.data() + static_cast<std::size_t>(omp_get_thread_num()) * rows);
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t r = 0; r < rows; ++r) {
    T sum = 0;
    for (int t = 0; t < threads; ++t)
      sum += acc[static_cast<std::size_t>(t) * rows + r];
    axpby_store(y, r, alpha, sum, beta);
  }
}

}  // namespace spx::cpu
