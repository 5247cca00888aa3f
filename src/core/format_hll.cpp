// Construction and validation of HLL (Hacked ELLPACK).
#include "spx/formats/hll.hpp"

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {

template <Value T, Index I>
Hll<T, I>::Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values,
               Array<I> row_len, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      nnz_(known.nnz) {}

template <Value T, Index I>
Hll<T, I>::Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values,
               Array<I> row_len, Check check) try
    : Hll(rows, cols, hack_size, std::move(hack_ptr), std::move(col_idx), std::move(values),
          std::move(row_len), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::sum_of_lengths(row_len_);
    return;
  }
  constexpr std::string_view F = "HLL";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(
      F, {hack_ptr_.space(), col_idx_.space(), values_.space(), row_len_.space()});
  detail::check_at_least(F, "hack_size", hack_size, 1);
  const std::int64_t H = hack_size, hacks = (std::int64_t{rows} + H - 1) / H;
  const std::vector<I> ptr = hack_ptr_.to_vector();
  detail::check_length(F, "hack_ptr", static_cast<std::int64_t>(ptr.size()), hacks + 1,
                       fmt::format("ceil(rows / H) + 1 = ceil({} / {}) + 1", rows, H));
  detail::check_monotone({F, "hack_ptr", "col_idx", "hack", ""}, ptr.data(), hacks);
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t n = std::min<std::int64_t>(H, rows - h * H);
    if ((std::int64_t{ptr[h + 1]} - ptr[h]) % n != 0)
      throw InvalidInput(fmt::format(
          "HLL: hack_ptr[{}] - hack_ptr[{}] = {} - {} must be a non-negative multiple of the "
          "hack's {} rows",
          h + 1, h, ptr[h + 1], ptr[h], n));
  }
  detail::check_stored(F, fmt::format("hack_ptr[{}]", hacks), ptr[hacks], col_idx_.size(),
                       values_.size());
  nnz_ = detail::check_ell_groups(F, rows, cols, col_idx_, values_, row_len_, hacks, [&](auto h) {
    return detail::hll_group(rows, H, ptr.data(), h);
  });
} catch (...) {
  detail::rethrow_allocation_failure("HLL");
}

template <Value T, Index I>
Hll<T, I> Hll<T, I>::to(Space space) const {
  return Hll(this->rows_, this->cols_, hack_size_, hack_ptr_.to(space), col_idx_.to(space),
             values_.to(space), row_len_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Hll)

}  // namespace spx
