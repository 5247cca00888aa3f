// MatrixStats from a host CSR matrix. Memory: O(rows + nnz), never O(cols)
// (a 1 × 2e9 matrix with two entries analyses at once): the counts of
// occupied diagonals and of aligned blocks use a map over the columns only
// where it costs no more than a few bytes per nonzero, and otherwise sort the
// keys of the nonzeros. Both paths give the same numbers.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "common/first_error.hpp"
#include "core/convert_formats.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/row_lengths.hpp"
#include "core/stats.hpp"
#include "spx/analysis.hpp"
#include "spx/registry.hpp"

namespace spx {
namespace {

/// How many maps of `entries` slots (up to 8 bytes each) fit a budget of 8
/// bytes per nonzero and row plus 64 Ki slots, so that statistics stay
/// proportional to the matrix (0 when not even one fits).
std::int64_t maps_that_fit(std::int64_t entries, std::int64_t nnz, std::int64_t rows) {
  const std::int64_t budget = nnz + rows + (std::int64_t{1} << 16);
  return budget / std::max<std::int64_t>(entries, 1);
}

/// The number of distinct values in `keys` (sorted in place).
std::int64_t count_distinct(detail::HostVector<std::int64_t>& keys) {
  std::sort(keys.begin(), keys.end());
  return static_cast<std::int64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

/// Occupied diagonals: distinct col − row over the nonzeros.
template <Index I>
std::int64_t count_diagonals(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                             std::int64_t nnz) {
  if (nnz == 0) return 0;
  // (m + n slots, compared without the sum, which a 1 × (2⁶³ − 1) matrix
  // overflows.)
  if (n <= nnz + (std::int64_t{1} << 16) && maps_that_fit(m + n, nnz, m) >= 1) {
    // A byte per diagonal: mark j − i + (rows − 1).
    detail::HostVector<std::atomic<std::uint8_t>> mark(static_cast<std::size_t>(m + n));
#pragma omp parallel for schedule(static, 4096)
    for (std::int64_t r = 0; r < m; ++r)
      for (I k = ptr[r]; k < ptr[r + 1]; ++k)
        mark[col[k] - r + (m - 1)].store(1, std::memory_order_relaxed);
    std::int64_t diags = 0;
#pragma omp parallel for reduction(+ : diags)
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(mark.size()); ++d)
      diags += mark[d].load(std::memory_order_relaxed);
    return diags;
  }
  // Few nonzeros for the shape: sort their diagonals.
  detail::HostVector<std::int64_t> diag(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(static, 4096)
  for (std::int64_t r = 0; r < m; ++r)
    for (I k = ptr[r]; k < ptr[r + 1]; ++k)
      diag[k] = std::int64_t{col[k]} - r;
  return count_distinct(diag);
}

/// Aligned b×b blocks holding at least one entry: distinct block columns per
/// block row, summed.
template <Index I>
std::int64_t count_blocks(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                          std::int64_t nnz, int b) {
  const std::int64_t block_rows = (m + b - 1) / b;
  const std::int64_t block_cols = (n + b - 1) / b;
  // A stamp array per thread where at least 8 threads (or all) can have
  // one, on as many threads as fit; else sorting on every thread.
  const std::int64_t threads = omp_get_max_threads();
  const std::int64_t fit = maps_that_fit(block_cols, nnz, m);
  const bool stamps = fit >= std::min<std::int64_t>(threads, 8);
  const int team = static_cast<int>(stamps ? std::min(threads, fit) : threads);
  std::int64_t blocks = 0;
  detail::FirstError err;
#pragma omp parallel num_threads(team) reduction(+ : blocks)
  {
    // Per thread: a stamp per block column (stamp = block row, so no
    // clearing), or the block columns of one block row, sorted.
    detail::HostVector<std::int64_t> stamp, keys;
    if (stamps) err.run([&] { stamp.assign(static_cast<std::size_t>(block_cols), -1); });
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t br = 0; br < block_rows; ++br)
      err.run([&] {
        const std::int64_t r0 = br * b, r_end = std::min<std::int64_t>(m, r0 + b);
        if (stamps) {
          for (std::int64_t r = r0; r < r_end; ++r)
            for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
              const std::int64_t bc = col[k] / b;
              if (stamp[bc] != br) {
                stamp[bc] = br;
                ++blocks;
              }
            }
        } else {
          keys.clear();
          for (std::int64_t r = r0; r < r_end; ++r)
            for (I k = ptr[r]; k < ptr[r + 1]; ++k)
              keys.push_back(col[k] / b);
          blocks += count_distinct(keys);
        }
      });
  }
  err.rethrow();
  return blocks;
}

/// MatrixStats::scatter: the nonzeros whose line of x (kScatterLine columns)
/// is neither the line of the row's previous nonzero nor one of the previous
/// row's lines, over nnz. The columns of a row are sorted, so the previous
/// row's lines are walked once alongside the row's: O(nnz) in all.
template <Index I>
double scatter_fraction(const I* ptr, const I* col, std::int64_t m, std::int64_t nnz) {
  if (nnz == 0) return 0.0;
  constexpr std::int64_t line = MatrixStats::kScatterLine;
  std::int64_t misses = 0;
#pragma omp parallel for reduction(+ : misses) schedule(static, 4096)
  for (std::int64_t r = 0; r < m; ++r) {
    std::int64_t p = r > 0 ? std::int64_t{ptr[r - 1]} : 0;
    const std::int64_t p_end = r > 0 ? std::int64_t{ptr[r]} : 0;
    std::int64_t last = -1;  // the line of the row's previous nonzero
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      const std::int64_t l = std::int64_t{col[k]} / line;
      if (l == last) continue;
      last = l;
      while (p < p_end && std::int64_t{col[p]} / line < l)
        ++p;
      misses += p == p_end || std::int64_t{col[p]} / line != l;
    }
  }
  return static_cast<double>(misses) / static_cast<double>(nnz);
}

/// The row counts of MatrixStats (rows, cols, nnz, density, the row
/// lengths' mean, deviation, least, longest and empty rows), from the row
/// lengths' summary.
MatrixStats row_statistics(const detail::RowLengthSummary& lengths, std::int64_t n) {
  MatrixStats s;
  const std::int64_t m = lengths.rows;
  s.rows = m;
  s.cols = n;
  s.nnz = lengths.nnz;
  if (s.rows > 0 && s.cols > 0)
    s.density = static_cast<double>(s.nnz) / (static_cast<double>(s.rows) * s.cols);
  s.row_min = lengths.shortest();
  s.row_max = lengths.longest();
  s.empty_rows = lengths.empty_rows();
  s.row_mean = m > 0 ? static_cast<double>(s.nnz) / m : 0.0;
  s.row_std = m > 0 ? std::sqrt(lengths.squared_deviation() / m) : 0.0;
  return s;
}

/// Lower and upper bandwidth from each row's first and last column.
template <Index I>
void set_bandwidth(MatrixStats& s, const I* ptr, const I* col) {
  std::int64_t lower = 0, upper = 0;
  const std::int64_t m = s.rows;
#pragma omp parallel for reduction(max : lower, upper) schedule(static, 4096)
  for (std::int64_t r = 0; r < m; ++r)
    if (ptr[r + 1] > ptr[r]) {
      lower = std::max<std::int64_t>(lower, r - col[ptr[r]]);
      upper = std::max<std::int64_t>(upper, col[ptr[r + 1] - 1] - r);
    }
  s.lower_bandwidth = lower;
  s.upper_bandwidth = upper;
  s.bandwidth = s.nnz > 0 ? lower + upper + 1 : 0;
}

void set_block_fill(MatrixStats& s, int b, std::int64_t blocks) {
  s.block_fill[static_cast<std::size_t>(b - 2)] =
      blocks > 0 ? static_cast<double>(s.nnz) / (static_cast<double>(blocks) * b * b) : 0.0;
}

}  // namespace

MatrixStats detail::stats_from_counts(const RowLengthSummary& lengths, std::int64_t cols,
                                      const ColumnCounts& c) {
  MatrixStats s = row_statistics(lengths, cols);
  s.lower_bandwidth = c.lower_bandwidth;
  s.upper_bandwidth = c.upper_bandwidth;
  s.bandwidth = s.nnz > 0 ? c.lower_bandwidth + c.upper_bandwidth + 1 : 0;
  s.diagonals = c.diagonals;
  for (int b = 2; b <= 8; ++b)
    set_block_fill(s, b, c.blocks[static_cast<std::size_t>(b - 2)]);
  s.scatter = s.nnz > 0 ? static_cast<double>(c.scattered) / static_cast<double>(s.nnz) : 0.0;
  return s;
}

template <Index I>
MatrixStats detail::stats_from_counts(const I* ptr, std::int64_t rows, std::int64_t cols,
                                      const ColumnCounts& c) {
  return stats_from_counts(row_lengths(ptr, rows), cols, c);
}

template <Value T, Index I>
MatrixStats detail::analyze_host(const Csr<T, I>& A, const RowLengthSummary& lengths) {
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  const std::int64_t m = A.rows();
  MatrixStats s = row_statistics(lengths, A.cols());
  set_bandwidth(s, ptr, col);
  s.diagonals = count_diagonals(ptr, col, m, s.cols, s.nnz);
  for (int b = 2; b <= 8; ++b)
    set_block_fill(s, b, count_blocks(ptr, col, m, s.cols, s.nnz, b));
  s.scatter = scatter_fraction(ptr, col, m, s.nnz);
  return s;
}

template <Value T, Index I>
MatrixStats analyze(const Csr<T, I>& A) try {
  if (A.space() != Space::Host) {
    // Where the matrix lives: the row pointers travel, the columns do not.
    if (A.nnz() < detail::kDeviceStatsMinEntries) return analyze(A.to(Space::Host));
    const ColumnReader<T, I>& reader = detail::column_reader_of(A, "analyze");
    const Array<I> ptr = A.row_ptr().to(Space::Host);
    return detail::stats_from_counts(ptr.data(), A.rows(), A.cols(), reader.counts(A));
  }
  return detail::analyze_host(A, detail::row_lengths(A.row_ptr().data(), A.rows()));
} catch (...) {
  detail::rethrow_allocation_failure("analyze");
}

#define SPX_INST(T, I)                            \
  template MatrixStats analyze(const Csr<T, I>&); \
  template MatrixStats detail::analyze_host(const Csr<T, I>&, const detail::RowLengthSummary&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST
template MatrixStats detail::stats_from_counts(const std::int32_t*, std::int64_t, std::int64_t,
                                               const ColumnCounts&);
template MatrixStats detail::stats_from_counts(const std::int64_t*, std::int64_t, std::int64_t,
                                               const ColumnCounts&);

}  // namespace spx
