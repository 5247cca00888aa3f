// Construction, validation and copies of BatchEll.
#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/batch_util.hpp"
#include "core/checked.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/batch/batch_ell.hpp"

namespace spx {

namespace {
constexpr std::string_view kName = "BatchEll";
}

template <Value T, Index I>
BatchEll<T, I>::BatchEll(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets,
                         Array<I> widths, Array<I> row_len, Array<I> col_idx, Array<T> values,
                         Check check) try
    : row_len_(std::move(row_len)), col_idx_(std::move(col_idx)), values_(std::move(values)) {
  detail::check_same_space(kName, {row_offsets.space(), col_offsets.space(), widths.space(),
                                   row_len_.space(), col_idx_.space(), values_.space()});
  detail::BatchOffsets off = detail::checked_offsets(kName, row_offsets, col_offsets, nullptr,
                                                     std::numeric_limits<I>::max());
  std::vector<std::int64_t>&rows = off.rows, &cols = off.cols;
  const std::int64_t count = off.count(), size = count + 1;

  // Widths → slot offsets (rows x width per matrix, overflow-checked).
  widths_ = widths.to_vector();
  detail::check_length(kName, "widths", widths_.size(), count, "one per matrix");
  std::vector<std::int64_t> slots(static_cast<std::size_t>(size), 0);
  for (std::int64_t i = 0; i < count; ++i) {
    if (widths_[i] < 0)
      throw InvalidInput(
          fmt::format("{}: matrix {}: widths[{}] = {} is negative", kName, i, i, widths_[i]));
    const std::int64_t s = detail::checked_mul(rows[i + 1] - rows[i], widths_[i], "rows x width");
    if (__builtin_add_overflow(slots[i], s, &slots[i + 1]))
      throw InvalidInput(fmt::format("{}: total slots overflow 64 bits at matrix {}", kName, i));
  }
  detail::check_length(kName, "row_len", row_len_.size(), rows.back(), "total rows");
  detail::check_length(kName, "col_idx", col_idx_.size(), slots.back(), "sum of rows x width");
  detail::check_length(kName, "values", values_.size(), slots.back(), "sum of rows x width");

  // Row lengths (always: they give the nonzero counts) and, fully validated,
  // the column indices within each row's length.
  const std::vector<I> len = row_len_.to_vector();
  std::vector<I> col;
  if (check == Check::Full) col = col_idx_.to_vector();
  std::vector<std::int64_t> nnz(static_cast<std::size_t>(size), 0);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t m = rows[i + 1] - rows[i], n = cols[i + 1] - cols[i], w = widths_[i];
    std::int64_t entries = 0;
    for (std::int64_t r = 0; r < m; ++r) {
      const std::int64_t pos = rows[i] + r;
      const std::int64_t l = len[pos];
      if (l < 0 || l > w)
        throw InvalidInput(
            fmt::format("{}: matrix {}: row_len[{}] = {} (its row {}) is out of "
                        "range [0, width {}]",
                        kName, i, pos, l, r, w));
      entries += l;
      if (check != Check::Full) continue;
      for (std::int64_t j = 0; j < l; ++j) {
        const std::int64_t k = slots[i] + j * m + r;
        if (col[k] < 0 || col[k] >= n)
          throw InvalidInput(
              fmt::format("{}: matrix {}: col_idx[{}] = {} (its row {}, slot {}) is "
                          "out of range [0, {})",
                          kName, i, k, col[k], r, j, n));
        if (j > 0 && col[k] <= col[k - m])
          throw InvalidInput(fmt::format(
              "{}: matrix {}: column indices not strictly increasing in its row {}: col_idx[{}] = "
              "{} after {} (indices must be sorted and unique)",
              kName, i, r, k, col[k], col[k - m]));
      }
    }
    nnz[i + 1] = nnz[i] + entries;
  }
  set_layout(std::move(rows), std::move(cols), std::move(slots), std::move(nnz), row_len_.space());
} catch (...) {
  detail::rethrow_allocation_failure(kName);
}

template <Value T, Index I>
BatchEll<T, I> BatchEll<T, I>::from_matrices(std::span<const Csr<T, I>> matrices) try {
  if (matrices.empty()) return BatchEll();
  const Space space = matrices.front().space();
  const detail::BatchOffsets off = detail::offsets_of(kName, matrices);
  std::vector<I> widths, len, col;
  std::vector<T> val;
  for (const auto& A : matrices) {
    const std::vector<I> ptr = A.row_ptr().to_vector();
    const std::vector<I> c = A.col_idx().to_vector();
    const std::vector<T> v = A.values().to_vector();
    const std::int64_t m = A.rows();
    I w = 0;
    for (std::int64_t r = 0; r < m; ++r)
      w = std::max<I>(w, ptr[r + 1] - ptr[r]);
    widths.push_back(w);
    const std::int64_t s = detail::checked_mul(m, w, "rows x width");
    const std::size_t base = col.size();
    col.resize(base + static_cast<std::size_t>(s), I{0});
    val.resize(base + static_cast<std::size_t>(s), T{0});
    for (std::int64_t r = 0; r < m; ++r) {
      len.push_back(ptr[r + 1] - ptr[r]);
      for (I k = ptr[r]; k < ptr[r + 1]; ++k) {
        const std::size_t slot = base + static_cast<std::size_t>((k - ptr[r]) * m + r);
        col[slot] = c[k];
        val[slot] = v[k];
      }
    }
  }
  return BatchEll(Array<std::int64_t>(off.rows, space), Array<std::int64_t>(off.cols, space),
                  Array<I>(widths, space), Array<I>(len, space), Array<I>(col, space),
                  Array<T>(val, space), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchEll::from_matrices");
}

template <Value T, Index I>
std::int64_t BatchEll<T, I>::width(std::int64_t i) const {
  rows(i);  // range check
  return widths_[static_cast<std::size_t>(i)];
}

template <Value T, Index I>
Csr<T, I> BatchEll<T, I>::csr(std::int64_t i) const try {
  const std::int64_t m = rows(i), w = width(i);
  const std::vector<I> len = detail::slice(row_len_, host_row_offsets()[i], m).to_vector();
  const std::int64_t s = m * w, base = host_value_offsets()[i];
  const std::vector<I> c = detail::slice(col_idx_, base, s).to_vector();
  const std::vector<T> v = detail::slice(values_, base, s).to_vector();
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t j = 0; j < len[r]; ++j) {
      col.push_back(c[j * m + r]);
      val.push_back(v[j * m + r]);
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  return Csr<T, I>(static_cast<I>(m), static_cast<I>(cols(i)), Array<I>(ptr, space_),
                   Array<I>(col, space_), Array<T>(val, space_), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchEll::csr");
}

template <Value T, Index I>
BatchEll<T, I> BatchEll<T, I>::to(Space space) const try {
  BatchEll out;
  out.copy_layout_from(*this, space);
  out.widths_ = widths_;
  out.row_len_ = row_len_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  return out;
} catch (...) {
  detail::rethrow_allocation_failure("BatchEll::to");
}

SPX_INSTANTIATE_CLASS(BatchEll)

}  // namespace spx
