// Construction and validation of SymDia (lower diagonals of a symmetric matrix).
#include "spx/formats/sym_dia.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded.hpp"

namespace spx {

namespace {

/// Diagonal entries of a SYM_DIA: the nonzero values of diagonal 0 (when
/// stored) plus the explicit zeros on it.
template <Value T, Index I>
std::int64_t diagonal_entries_of(std::int64_t n, const std::vector<I>& off, const Array<T>& values,
                                 const ExplicitZeros<I>& zeros) {
  std::int64_t diagonal = 0;
  if (!off.empty() && off.back() == 0) {
    const std::int64_t d = static_cast<std::int64_t>(off.size()) - 1;
    if (values.space() == Space::Host) {
      diagonal += detail::count_nonzero(values.data() + d * n, static_cast<std::size_t>(n));
    } else {
      const std::vector<T> v = values.to_vector();
      diagonal += detail::count_nonzero(v.data() + d * n, static_cast<std::size_t>(n));
    }
  }
  const std::vector<I> zr = zeros.rows.to_vector(), zc = zeros.cols.to_vector();
  for (std::size_t k = 0; k < zr.size(); ++k)
    diagonal += zr[k] == zc[k] ? 1 : 0;
  return diagonal;
}

}  // namespace

template <Value T, Index I>
SymDia<T, I>::SymDia(I n, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros, Known known,
                     std::int64_t diagonal_entries)
    : detail::FormatBase<I>(n, n, values.space()),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())),
      nnz_(known.nnz),
      diagonal_(diagonal_entries) {}

template <Value T, Index I>
SymDia<T, I>::SymDia(I n, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros,
                     Check check) try
    : SymDia(n, std::move(offsets), std::move(values), std::move(zeros), Known{}, 0) {
  constexpr std::string_view F = "SYM_DIA";
  const std::vector<I> off = offsets_.to_vector();
  const std::int64_t nd = static_cast<std::int64_t>(off.size());
  std::int64_t stored = 0;
  if (check == Check::Trusted) {
    stored = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
  } else {
    detail::check_shape(F, n, n);
    detail::check_same_space(
        F, {values_.space(), offsets_.space(), zeros_.rows.space(), zeros_.cols.space()});
    for (std::int64_t d = 0; d < nd; ++d)
      if (off[d] > 0)
        throw InvalidInput(fmt::format(
            "{}: offsets[{}] = {} lies above the diagonal (SYM_DIA stores the diagonals of "
            "offset <= 0: the lower triangle and the diagonal)",
            F, d, off[d]));
    stored = detail::check_diagonals<T, I>(
        F, detail::dia_layout<I>(n, n, off.data(), nd), values_,
        detail::checked_mul(n, nd, "SYM_DIA values (rows x diagonals)"),
        fmt::format("rows x diagonals = {} x {}", n, nd), zeros_, false);
  }
  diagonal_ = diagonal_entries_of<T, I>(n, off, values_, zeros_);
  nnz_ = 2 * stored - diagonal_;
} catch (...) {
  detail::rethrow_allocation_failure("SYM_DIA");
}

template <Value T, Index I>
SymDia<T, I> SymDia<T, I>::to(Space space) const {
  return SymDia(this->rows_, offsets_.to(space), values_.to(space), zeros_.to(space),
                Known{.nnz = nnz_}, diagonal_);
}

SPX_INSTANTIATE_CLASS(SymDia)

}  // namespace spx
