// MatrixStats from a host CSR matrix.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "spx/analysis.hpp"

namespace spx {

template <Value T, Index I>
MatrixStats analyze(const Csr<T, I>& A) {
  detail::require_host(A.space(), "analyze");
  MatrixStats s;
  s.rows = A.rows();
  s.cols = A.cols();
  s.nnz = A.nnz();
  if (s.rows > 0 && s.cols > 0)
    s.density = static_cast<double>(s.nnz) / (static_cast<double>(s.rows) * s.cols);
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const std::int64_t m = s.rows;

  // Row lengths and bandwidths.
  std::int64_t rmin = m > 0 ? std::numeric_limits<std::int64_t>::max() : 0, rmax = 0, empty = 0;
  std::int64_t lower = 0, upper = 0;
  double sum_sq = 0;
  const double mean = m > 0 ? static_cast<double>(s.nnz) / m : 0.0;
#pragma omp parallel for reduction(min : rmin) reduction(max : rmax, lower, upper) \
    reduction(+ : empty, sum_sq) schedule(static, 4096)
  for (std::int64_t r = 0; r < m; ++r) {
    const std::int64_t len = ptr[r + 1] - ptr[r];
    rmin = std::min(rmin, len);
    rmax = std::max(rmax, len);
    empty += len == 0;
    sum_sq += (len - mean) * (len - mean);
    if (len > 0) {
      lower = std::max<std::int64_t>(lower, r - col[ptr[r]]);
      upper = std::max<std::int64_t>(upper, col[ptr[r + 1] - 1] - r);
    }
  }
  s.row_min = rmin;
  s.row_max = rmax;
  s.empty_rows = empty;
  s.row_mean = mean;
  s.row_std = m > 0 ? std::sqrt(sum_sq / m) : 0.0;
  s.lower_bandwidth = lower;
  s.upper_bandwidth = upper;
  s.bandwidth = s.nnz > 0 ? lower + upper + 1 : 0;

  // Occupied diagonals: mark j − i + (rows − 1) in a byte map.
  if (s.nnz > 0) {
    std::vector<std::atomic<std::uint8_t>> mark(static_cast<std::size_t>(s.rows + s.cols));
#pragma omp parallel for schedule(static, 4096)
    for (std::int64_t r = 0; r < m; ++r)
      for (I k = ptr[r]; k < ptr[r + 1]; ++k)
        mark[col[k] - r + (m - 1)].store(1, std::memory_order_relaxed);
    std::int64_t diags = 0;
#pragma omp parallel for reduction(+ : diags)
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(mark.size()); ++d)
      diags += mark[d].load(std::memory_order_relaxed);
    s.diagonals = diags;
  }

  // Fill of aligned b×b blocks: count distinct block columns per block row,
  // with a per-thread stamp array (stamp = block row + 1, so no clearing).
  for (int b = 2; b <= 8; ++b) {
    const std::int64_t block_rows = (m + b - 1) / b;
    const std::int64_t block_cols = (s.cols + b - 1) / b;
    std::int64_t blocks = 0;
#pragma omp parallel reduction(+ : blocks)
    {
      std::vector<std::int64_t> stamp(static_cast<std::size_t>(block_cols), -1);
#pragma omp for schedule(dynamic, 256)
      for (std::int64_t br = 0; br < block_rows; ++br) {
        const std::int64_t r_end = std::min<std::int64_t>(m, (br + 1) * b);
        for (std::int64_t r = br * b; r < r_end; ++r)
          for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
            const std::int64_t bc = col[k] / b;
            if (stamp[bc] != br) {
              stamp[bc] = br;
              ++blocks;
            }
          }
      }
    }
    s.block_fill[b - 2] =
        blocks > 0 ? static_cast<double>(s.nnz) / (static_cast<double>(blocks) * b * b) : 0.0;
  }
  return s;
}

#define SPX_INST(T, I) template MatrixStats analyze(const Csr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx
