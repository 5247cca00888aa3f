// Construction and validation of ELL.
#include "spx/formats/ell.hpp"

#include "core/checked.hpp"
#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {

template <Value T, Index I>
Ell<T, I>::Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len,
               Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      width_(width),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      nnz_(known.nnz) {}

template <Value T, Index I>
Ell<T, I>::Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len,
               Check check) try
    : Ell(rows, cols, width, std::move(col_idx), std::move(values), std::move(row_len), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::sum_of_lengths(row_len_);
    return;
  }
  constexpr std::string_view F = "ELL";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(F, {col_idx_.space(), values_.space(), row_len_.space()});
  detail::check_at_least(F, "width", width, 0);
  const std::int64_t slots = detail::checked_mul(rows, width, "ELL rows x width");
  detail::check_stored(F, fmt::format("rows x width = {} x {}", rows, width), slots,
                       col_idx_.size(), values_.size());
  const detail::EllGroup all_rows{0, rows, rows, width, 0};
  nnz_ = detail::check_ell_groups(F, rows, cols, col_idx_, values_, row_len_, 1,
                                  [&](std::int64_t) { return all_rows; });
} catch (...) {
  detail::rethrow_allocation_failure("ELL");
}

template <Value T, Index I>
Ell<T, I> Ell<T, I>::to(Space space) const {
  return Ell(this->rows_, this->cols_, width_, col_idx_.to(space), values_.to(space),
             row_len_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Ell)

}  // namespace spx
