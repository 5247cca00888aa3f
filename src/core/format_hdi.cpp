// Construction and validation of HDI.
#include "spx/formats/hdi.hpp"

#include <vector>

#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Hdi<T, I>::Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values,
               ExplicitZeros<I> zeros, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())),
      nnz_(known.nnz) {}

template <Value T, Index I>
Hdi<T, I>::Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values,
               ExplicitZeros<I> zeros, Check check) try
    : Hdi(rows, cols, hack_size, std::move(hack_ptr), std::move(offsets), std::move(values),
          std::move(zeros), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
    return;
  }
  constexpr std::string_view F = "HDI";
  detail::check_shape(F, rows, cols);
  detail::check_at_least(F, "hack_size", hack_size, 1);
  detail::check_same_space(F, {values_.space(), hack_ptr_.space(), offsets_.space(),
                               zeros_.rows.space(), zeros_.cols.space()});
  const std::int64_t m = rows, H = hack_size, nh = (m + H - 1) / H;
  const std::vector<I> ptr = hack_ptr_.to_vector();
  const std::vector<I> off = offsets_.to_vector();
  detail::check_length(F, "hack_ptr", static_cast<std::int64_t>(ptr.size()), nh + 1,
                       fmt::format("hacks + 1 = ceil({} / {}) + 1", m, H));
  detail::check_pointers({F, "hack_ptr", "offsets", "hack", "offsets"}, ptr.data(), nh,
                         static_cast<std::int64_t>(off.size()));
  const std::int64_t last_rows = nh > 0 ? m - (nh - 1) * H : 0;
  const std::int64_t last_diags = nh > 0 ? ptr[nh] - ptr[nh - 1] : 0;
  nnz_ = detail::check_diagonals<T, I>(
      F, detail::hdi_layout<I>(m, cols, H, ptr.data(), nh, off.data()), values_,
      detail::hdi_size<T, I>(H, nh, ptr[nh], last_rows, last_diags).values,
      "hack_size x diagonals of every hack but the last + rows x diagonals of the last", zeros_,
      true);
} catch (...) {
  detail::rethrow_allocation_failure("HDI");
}

template <Value T, Index I>
Hdi<T, I> Hdi<T, I>::to(Space space) const {
  return Hdi(this->rows_, this->cols_, hack_size_, hack_ptr_.to(space), offsets_.to(space),
             values_.to(space), zeros_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Hdi)

}  // namespace spx
