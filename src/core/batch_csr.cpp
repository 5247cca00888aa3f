// Construction, validation and copies of BatchCsr.
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/batch_util.hpp"
#include "core/checked.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "spx/batch/batch_csr.hpp"

namespace spx {

namespace {
constexpr std::string_view kName = "BatchCsr";
}

template <Value T, Index I>
BatchCsr<T, I>::BatchCsr(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets,
                         Array<std::int64_t> nnz_offsets, Array<I> row_ptr, Array<I> col_idx,
                         Array<T> values, Check check) try
    : row_ptr_(std::move(row_ptr)), col_idx_(std::move(col_idx)), values_(std::move(values)) {
  detail::check_same_space(kName, {row_offsets.space(), col_offsets.space(), nnz_offsets.space(),
                                   row_ptr_.space(), col_idx_.space(), values_.space()});
  // The offsets and the array lengths are checked even for trusted input:
  // they are cheap and every kernel's bounds depend on them.
  detail::BatchOffsets off = detail::checked_offsets(kName, row_offsets, col_offsets, &nnz_offsets,
                                                     std::numeric_limits<I>::max());
  const std::int64_t count = off.count();
  detail::check_length(
      kName, "row_ptr", row_ptr_.size(),
      detail::checked_add(off.rows.back(), count, "BatchCsr: total rows + one per matrix"),
      "total rows + one per matrix");
  detail::check_length(kName, "col_idx", col_idx_.size(), off.nnz.back(), "nnz_offsets[count]");
  detail::check_length(kName, "values", values_.size(), off.nnz.back(), "nnz_offsets[count]");

  if (check == Check::Full) {
    const std::vector<I> ptr = row_ptr_.to_vector();
    const std::vector<I> col = col_idx_.to_vector();
    for (std::int64_t i = 0; i < count; ++i) {
      const std::string who = detail::matrix_name(kName, i);
      const std::int64_t ptr_pos = off.rows[i] + i, col_pos = off.nnz[i];
      detail::check_compressed({who, "row_ptr", "col_idx", "its row", "column indices"},
                               ptr.data() + ptr_pos, off.rows[i + 1] - off.rows[i],
                               col.data() + col_pos, off.nnz[i + 1] - col_pos,
                               off.cols[i + 1] - off.cols[i], ptr_pos, col_pos);
    }
  }
  std::vector<std::int64_t> value_offsets = off.nnz;
  set_layout(std::move(off.rows), std::move(off.cols), std::move(value_offsets), std::move(off.nnz),
             row_ptr_.space());
} catch (...) {
  detail::rethrow_allocation_failure(kName);
}

template <Value T, Index I>
BatchCsr<T, I> BatchCsr<T, I>::uniform(std::int64_t count, I rows, I cols, Array<I> row_ptr,
                                       Array<I> col_idx, Array<T> values, Check check) try {
  if (count < 0) throw InvalidInput(fmt::format("{}: negative matrix count {}", kName, count));
  detail::check_shape(kName, rows, cols);
  detail::check_same_space(kName, {row_ptr.space(), col_idx.space(), values.space()});
  const auto nnz = static_cast<std::int64_t>(col_idx.size());
  detail::check_length(kName, "row_ptr", row_ptr.size(), std::int64_t{rows} + 1,
                       "rows + 1 of the shared pattern");
  detail::check_length(kName, "values", values.size(),
                       detail::checked_mul(count, nnz, "count x nonzeros per matrix"),
                       "count x nonzeros of the shared pattern");
  const std::vector<I> ptr = row_ptr.to_vector();
  if (check == Check::Full) {
    const std::vector<I> col = col_idx.to_vector();
    detail::check_compressed({fmt::format("{}: the shared pattern", kName), "row_ptr", "col_idx",
                              "its row", "column indices"},
                             ptr.data(), rows, col.data(), nnz, cols);
  } else if (ptr.back() != nnz) {
    throw InvalidInput(
        fmt::format("{}: the shared pattern's row_ptr ends at {} but col_idx has {} entries", kName,
                    ptr.back(), nnz));
  }
  detail::checked_mul(count, std::int64_t{rows} + 1, "count x rows");
  detail::checked_mul(count, std::int64_t{cols} + 1, "count x columns");
  const auto n = static_cast<std::size_t>(count) + 1;
  std::vector<std::int64_t> r(n), c(n), v(n);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = static_cast<std::int64_t>(i) * rows;
    c[i] = static_cast<std::int64_t>(i) * cols;
    v[i] = static_cast<std::int64_t>(i) * nnz;
  }
  BatchCsr out;
  const Space space = values.space();
  out.row_ptr_ = std::move(row_ptr);
  out.col_idx_ = std::move(col_idx);
  out.values_ = std::move(values);
  out.uniform_ = true;
  std::vector<std::int64_t> nz = v;
  out.set_layout(std::move(r), std::move(c), std::move(v), std::move(nz), space);
  return out;
} catch (...) {
  detail::rethrow_allocation_failure("BatchCsr::uniform");
}

template <Value T, Index I>
BatchCsr<T, I> BatchCsr<T, I>::from_matrices(std::span<const Csr<T, I>> matrices) try {
  if (matrices.empty()) return BatchCsr();
  const Space space = matrices.front().space();
  const detail::BatchOffsets off = detail::offsets_of(kName, matrices);
  std::vector<I> ptr;
  std::vector<I> col;
  std::vector<T> val;
  ptr.reserve(static_cast<std::size_t>(off.rows.back()) + matrices.size());
  col.reserve(static_cast<std::size_t>(off.nnz.back()));
  val.reserve(static_cast<std::size_t>(off.nnz.back()));
  for (const auto& A : matrices) {
    for (I p : A.row_ptr().to_vector())
      ptr.push_back(p);
    for (I c : A.col_idx().to_vector())
      col.push_back(c);
    for (T v : A.values().to_vector())
      val.push_back(v);
  }
  return BatchCsr(Array<std::int64_t>(off.rows, space), Array<std::int64_t>(off.cols, space),
                  Array<std::int64_t>(off.nnz, space), Array<I>(ptr, space), Array<I>(col, space),
                  Array<T>(val, space), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchCsr::from_matrices");
}

template <Value T, Index I>
Csr<T, I> BatchCsr<T, I>::csr(std::int64_t i) const try {
  const auto m = static_cast<I>(rows(i));
  const auto n = static_cast<I>(cols(i));
  const std::int64_t nz = nnz(i);
  const std::int64_t ptr_pos = uniform_ ? 0 : host_row_offsets()[i] + i;
  const std::int64_t col_pos = uniform_ ? 0 : host_value_offsets()[i];
  return Csr<T, I>(m, n, detail::slice(row_ptr_, ptr_pos, std::int64_t{m} + 1),
                   detail::slice(col_idx_, col_pos, nz),
                   detail::slice(values_, host_value_offsets()[i], nz), Check::Trusted);
} catch (...) {
  detail::rethrow_allocation_failure("BatchCsr::csr");
}

template <Value T, Index I>
BatchCsr<T, I> BatchCsr<T, I>::to(Space space) const try {
  BatchCsr out;
  out.copy_layout_from(*this, space);
  out.row_ptr_ = row_ptr_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.uniform_ = uniform_;
  return out;
} catch (...) {
  detail::rethrow_allocation_failure("BatchCsr::to");
}

SPX_INSTANTIATE_CLASS(BatchCsr)

}  // namespace spx
