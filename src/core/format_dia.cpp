// Construction and validation of DIA.
#include "spx/formats/dia.hpp"

#include <vector>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Dia<T, I>::Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros,
               Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())),
      nnz_(known.nnz) {}

template <Value T, Index I>
Dia<T, I>::Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros,
               Check check) try
    : Dia(rows, cols, std::move(offsets), std::move(values), std::move(zeros), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
    return;
  }
  detail::check_shape("DIA", rows, cols);
  detail::check_same_space(
      "DIA", {values_.space(), offsets_.space(), zeros_.rows.space(), zeros_.cols.space()});
  const std::vector<I> off = offsets_.to_vector();
  const std::int64_t nd = static_cast<std::int64_t>(off.size());
  nnz_ = detail::check_diagonals<T, I>(
      "DIA", detail::dia_layout<I>(rows, cols, off.data(), nd), values_,
      detail::checked_mul(rows, nd, "DIA values (rows x diagonals)"),
      fmt::format("rows x diagonals = {} x {}", rows, nd), zeros_, false);
} catch (...) {
  detail::rethrow_allocation_failure("DIA");
}

template <Value T, Index I>
Dia<T, I> Dia<T, I>::to(Space space) const {
  return Dia(this->rows_, this->cols_, offsets_.to(space), values_.to(space), zeros_.to(space),
             Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Dia)

}  // namespace spx
