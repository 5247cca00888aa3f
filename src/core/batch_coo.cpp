// Construction, validation and copies of BatchCoo.
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/batch_util.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/batch/batch_coo.hpp"

namespace spx {

namespace {
constexpr std::string_view kName = "BatchCoo";
}

template <Value T, Index I>
BatchCoo<T, I>::BatchCoo(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets,
                         Array<std::int64_t> nnz_offsets, Array<I> row_idx, Array<I> col_idx,
                         Array<T> values, Check check) try
    : row_idx_(std::move(row_idx)), col_idx_(std::move(col_idx)), values_(std::move(values)) {
  detail::check_same_space(kName, {row_offsets.space(), col_offsets.space(), nnz_offsets.space(),
                                   row_idx_.space(), col_idx_.space(), values_.space()});
  detail::BatchOffsets off = detail::checked_offsets(kName, row_offsets, col_offsets, &nnz_offsets,
                                                     std::numeric_limits<I>::max());
  const std::int64_t nnz = off.nnz.back();
  detail::check_length(kName, "row_idx", row_idx_.size(), nnz, "nnz_offsets[count]");
  detail::check_length(kName, "col_idx", col_idx_.size(), nnz, "nnz_offsets[count]");
  detail::check_length(kName, "values", values_.size(), nnz, "nnz_offsets[count]");

  // Range checks (full validation) and the sortedness flag (always).
  const std::vector<I> r = row_idx_.to_vector();
  const std::vector<I> c = col_idx_.to_vector();
  sorted_ = true;
  for (std::int64_t i = 0; i < off.count(); ++i) {
    const std::int64_t begin = off.nnz[i], end = off.nnz[i + 1];
    if (check == Check::Full)
      detail::check_coo_entries(detail::matrix_name(kName, i), r, c, begin, end,
                                off.rows[i + 1] - off.rows[i], off.cols[i + 1] - off.cols[i]);
    sorted_ = sorted_ && detail::coo_sorted(r, c, begin, end);
  }
  std::vector<std::int64_t> value_offsets = off.nnz;
  set_layout(std::move(off.rows), std::move(off.cols), std::move(value_offsets), std::move(off.nnz),
             row_idx_.space());
} catch (...) {
  detail::rethrow_allocation_failure(kName);
}

template <Value T, Index I>
BatchCoo<T, I> BatchCoo<T, I>::from_matrices(std::span<const Csr<T, I>> matrices) try {
  if (matrices.empty()) return BatchCoo();
  const Space space = matrices.front().space();
  const detail::BatchOffsets off = detail::offsets_of(kName, matrices);
  std::vector<I> ri, ci;
  std::vector<T> val;
  for (const auto& A : matrices) {
    const std::vector<I> ptr = A.row_ptr().to_vector();
    for (I row = 0; row < A.rows(); ++row)
      for (I k = ptr[row]; k < ptr[row + 1]; ++k)
        ri.push_back(row);
    for (I c : A.col_idx().to_vector())
      ci.push_back(c);
    for (T v : A.values().to_vector())
      val.push_back(v);
  }
  return BatchCoo(Array<std::int64_t>(off.rows, space), Array<std::int64_t>(off.cols, space),
                  Array<std::int64_t>(off.nnz, space), Array<I>(ri, space), Array<I>(ci, space),
                  Array<T>(val, space), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchCoo::from_matrices");
}

template <Value T, Index I>
Coo<T, I> BatchCoo<T, I>::coo(std::int64_t i) const try {
  const auto m = static_cast<I>(rows(i));
  const auto n = static_cast<I>(cols(i));
  const std::int64_t begin = host_value_offsets()[i], nz = nnz(i);
  return Coo<T, I>(m, n, detail::slice(row_idx_, begin, nz), detail::slice(col_idx_, begin, nz),
                   detail::slice(values_, begin, nz), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchCoo::coo");
}

template <Value T, Index I>
Csr<T, I> BatchCoo<T, I>::csr(std::int64_t i) const try {
  // Sequential: batch members are small, and a parallel conversion per
  // matrix would cost more in thread start-up than it saves.
  const std::int64_t m = rows(i), n = cols(i);
  const std::int64_t begin = host_value_offsets()[i], nz = nnz(i);
  const std::vector<I> r = detail::slice(row_idx_, begin, nz).to_vector();
  const std::vector<I> c = detail::slice(col_idx_, begin, nz).to_vector();
  const std::vector<T> v = detail::slice(values_, begin, nz).to_vector();
  std::vector<std::int64_t> order(static_cast<std::size_t>(nz));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return r[a] < r[b] || (r[a] == r[b] && c[a] < c[b]);
  });
  // Sorted by (row, column), duplicates summed in stored order.
  std::vector<I> ptr(static_cast<std::size_t>(m) + 1, I{0}), col;
  std::vector<T> val;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::int64_t e = order[k];
    if (k > 0 && r[e] == r[order[k - 1]] && c[e] == c[order[k - 1]]) {
      val.back() += v[e];
      continue;
    }
    col.push_back(c[e]);
    val.push_back(v[e]);
    ++ptr[static_cast<std::size_t>(r[e]) + 1];
  }
  for (std::size_t row = 0; row < static_cast<std::size_t>(m); ++row)
    ptr[row + 1] += ptr[row];
  return Csr<T, I>(static_cast<I>(m), static_cast<I>(n), Array<I>(ptr, space_),
                   Array<I>(col, space_), Array<T>(val, space_), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchCoo::csr");
}

template <Value T, Index I>
BatchCoo<T, I> BatchCoo<T, I>::to(Space space) const try {
  BatchCoo out;
  out.copy_layout_from(*this, space);
  out.row_idx_ = row_idx_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.sorted_ = sorted_;
  return out;
} catch (...) {
  detail::rethrow_allocation_failure("BatchCoo::to");
}

SPX_INSTANTIATE_CLASS(BatchCoo)

}  // namespace spx
