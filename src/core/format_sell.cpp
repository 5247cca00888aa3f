// Construction and validation of SELL-C-σ / SELL-P.
#include "spx/formats/sell.hpp"

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"
#include "core/out_of_memory.hpp"

namespace spx {

template <Value T, Index I>
Sell<T, I>::Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
                 Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len,
                 Array<I> perm, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      slice_size_(slice_size),
      sigma_(sigma),
      threads_per_row_(threads_per_row),
      slice_ptr_(std::move(slice_ptr)),
      slice_width_(std::move(slice_width)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      perm_(std::move(perm)),
      nnz_(known.nnz) {}

template <Value T, Index I>
Sell<T, I>::Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
                 Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len,
                 Array<I> perm, Check check) try
    : Sell(rows, cols, slice_size, sigma, threads_per_row, std::move(slice_ptr),
           std::move(slice_width), std::move(col_idx), std::move(values), std::move(row_len),
           std::move(perm), Known{}) {
  if (check == Check::Trusted) {
    nnz_ = detail::sum_of_lengths(row_len_);
    return;
  }
  constexpr std::string_view F = "SELL";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(F, {slice_ptr_.space(), slice_width_.space(), col_idx_.space(),
                               values_.space(), row_len_.space()});
  if (!perm_.empty()) detail::check_same_space(F, {values_.space(), perm_.space()});
  detail::check_sell_parameters(slice_size, sigma, threads_per_row);
  const std::int64_t C = slice_size, slices = (std::int64_t{rows} + C - 1) / C;
  const std::vector<I> ptr = slice_ptr_.to_vector();
  const std::vector<I> width = slice_width_.to_vector();
  detail::check_length(F, "slice_width", static_cast<std::int64_t>(width.size()), slices,
                       fmt::format("ceil(rows / C) = ceil({} / {})", rows, C));
  detail::check_length(F, "slice_ptr", static_cast<std::int64_t>(ptr.size()), slices + 1,
                       "slices + 1");
  detail::check_monotone({F, "slice_ptr", "col_idx", "slice", ""}, ptr.data(), slices);
  for (std::int64_t s = 0; s < slices; ++s) {
    if (width[s] < 0 || width[s] % threads_per_row != 0)
      throw InvalidInput(fmt::format(
          "SELL: slice_width[{}] = {} must be a non-negative multiple of threads_per_row = {}", s,
          width[s], threads_per_row));
    std::int64_t step = 0;
    if (__builtin_mul_overflow(C, std::int64_t{width[s]}, &step) ||
        std::int64_t{ptr[s + 1]} - ptr[s] != step)
      throw InvalidInput(fmt::format(
          "SELL: slice_ptr[{}] - slice_ptr[{}] = {} - {}, expected C x slice_width[{}] = {} x {}",
          s + 1, s, ptr[s + 1], ptr[s], s, C, width[s]));
  }
  detail::check_stored(F, fmt::format("slice_ptr[{}]", slices), ptr[slices], col_idx_.size(),
                       values_.size());
  nnz_ = detail::check_ell_groups(F, rows, cols, col_idx_, values_, row_len_, slices, [&](auto s) {
    return detail::sell_group(rows, C, ptr.data(), width.data(), s);
  });
  if (perm_.empty()) return;
  const std::vector<I> p = perm_.to_vector();
  detail::check_permutation(F, p, rows);
  for (std::int64_t i = 0; i < rows; ++i)
    if (p[i] / sigma != i / sigma)
      throw InvalidInput(fmt::format(
          "SELL: perm[{}] = {} moves a row out of its window of sigma = {} rows{}", i, p[i], sigma,
          sigma == 1 ? " (with sigma = 1 the permutation must be the identity)" : ""));
} catch (...) {
  detail::rethrow_allocation_failure("SELL");
}

template <Value T, Index I>
Sell<T, I> Sell<T, I>::to(Space space) const {
  return Sell(this->rows_, this->cols_, slice_size_, sigma_, threads_per_row_, slice_ptr_.to(space),
              slice_width_.to(space), col_idx_.to(space), values_.to(space), row_len_.to(space),
              perm_.to(space), Known{.nnz = nnz_});
}

SPX_INSTANTIATE_CLASS(Sell)

}  // namespace spx
