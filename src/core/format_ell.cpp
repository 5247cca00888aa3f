// Construction and validation of ELL.
#include "spx/formats/ell.hpp"

#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"

namespace spx {

template <Value T, Index I>
Ell<T, I>::Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len,
               Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      width_(width),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)) {
  const std::vector<I> len = row_len_.to_vector();
  if (check == Check::Full) {
    detail::check_shape("ELL", rows, cols);
    detail::check_same_space("ELL", {col_idx_.space(), values_.space(), row_len_.space()});
    if (width < 0) throw InvalidInput(fmt::format("ELL: negative width {}", width));
    std::int64_t slots = 0;
    if (__builtin_mul_overflow(std::int64_t{rows}, std::int64_t{width}, &slots))
      throw InvalidInput(fmt::format("ELL: rows x width = {} x {} overflows", rows, width));
    if (col_idx_.size() != static_cast<std::size_t>(slots) ||
        values_.size() != static_cast<std::size_t>(slots))
      throw InvalidInput(fmt::format(
          "ELL: col_idx and values must hold rows x width = {} x {} = {} entries (got {} and {})",
          rows, width, slots, col_idx_.size(), values_.size()));
    if (len.size() != static_cast<std::size_t>(rows))
      throw InvalidInput(
          fmt::format("ELL: row_len has {} entries, expected rows = {}", len.size(), rows));
    nnz_ = detail::check_ell_group<T, I>("ELL", {0, rows, rows, width, 0}, col_idx_.to_vector(),
                                         values_.to_vector(), len, cols);
  } else {
    nnz_ = std::accumulate(len.begin(), len.end(), std::int64_t{0});
  }
}

template <Value T, Index I>
Ell<T, I> Ell<T, I>::to(Space space) const {
  Ell out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.width_ = width_;
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.row_len_ = row_len_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Ell<T, I>::Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      width_(width),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Ell)

}  // namespace spx
