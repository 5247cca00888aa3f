// Construction and validation of SELL-C-σ / SELL-P.
#include "spx/formats/sell.hpp"

#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"

namespace spx {

template <Value T, Index I>
Sell<T, I>::Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
                 Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len,
                 Array<I> perm, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      slice_size_(slice_size),
      sigma_(sigma),
      threads_per_row_(threads_per_row),
      slice_ptr_(std::move(slice_ptr)),
      slice_width_(std::move(slice_width)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      perm_(std::move(perm)) {
  const std::vector<I> len = row_len_.to_vector();
  if (check == Check::Trusted) {
    nnz_ = std::accumulate(len.begin(), len.end(), std::int64_t{0});
    return;
  }
  constexpr std::string_view F = "SELL";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(F, {slice_ptr_.space(), slice_width_.space(), col_idx_.space(),
                               values_.space(), row_len_.space()});
  if (!perm_.empty() && perm_.space() != values_.space())
    throw InvalidInput("SELL: arrays live in different memory spaces");
  if (slice_size < 1)
    throw InvalidInput(fmt::format("SELL: slice size C = {} must be at least 1", slice_size));
  if (threads_per_row < 1)
    throw InvalidInput(
        fmt::format("SELL: threads_per_row = {} must be at least 1", threads_per_row));
  if (sigma < 1 || (sigma != 1 && sigma % slice_size != 0))
    throw InvalidInput(
        fmt::format("SELL: sigma = {} must be 1 or a positive multiple of the slice size C = {}",
                    sigma, slice_size));
  const std::int64_t C = slice_size;
  const std::int64_t slices = (std::int64_t{rows} + C - 1) / C;
  if (slice_width_.size() != static_cast<std::size_t>(slices))
    throw InvalidInput(fmt::format(
        "SELL: slice_width has {} entries, expected ceil(rows / C) = ceil({} / {}) = {}",
        slice_width_.size(), rows, C, slices));
  if (slice_ptr_.size() != static_cast<std::size_t>(slices) + 1)
    throw InvalidInput(fmt::format("SELL: slice_ptr has {} entries, expected slices + 1 = {}",
                                   slice_ptr_.size(), slices + 1));
  if (len.size() != static_cast<std::size_t>(rows))
    throw InvalidInput(
        fmt::format("SELL: row_len has {} entries, expected rows = {}", len.size(), rows));
  const std::vector<I> ptr = slice_ptr_.to_vector();
  const std::vector<I> width = slice_width_.to_vector();
  if (ptr[0] != 0) throw InvalidInput(fmt::format("SELL: slice_ptr[0] = {}, expected 0", ptr[0]));
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
  const auto stored = static_cast<std::size_t>(ptr[slices]);
  if (col_idx_.size() != stored || values_.size() != stored)
    throw InvalidInput(
        fmt::format("SELL: col_idx and values must hold slice_ptr[{}] = {} entries (got {} and {})",
                    slices, stored, col_idx_.size(), values_.size()));
  const std::vector<I> col = col_idx_.to_vector();
  const std::vector<T> val = values_.to_vector();
  nnz_ = 0;
  for (std::int64_t s = 0; s < slices; ++s)
    nnz_ += detail::check_ell_group<T, I>(
        F, {ptr[s], C, std::min<std::int64_t>(C, rows - s * C), width[s], s * C}, col, val, len,
        cols);
  if (!perm_.empty()) {
    const std::vector<I> p = perm_.to_vector();
    detail::check_permutation(F, p, rows);
    for (std::int64_t i = 0; i < rows; ++i)
      if (p[i] / sigma != i / sigma)
        throw InvalidInput(fmt::format(
            "SELL: perm[{}] = {} moves a row out of its window of sigma = {} rows{}", i, p[i],
            sigma, sigma == 1 ? " (with sigma = 1 the permutation must be the identity)" : ""));
  }
}

template <Value T, Index I>
Sell<T, I> Sell<T, I>::to(Space space) const {
  Sell out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.slice_size_ = slice_size_;
  out.sigma_ = sigma_;
  out.threads_per_row_ = threads_per_row_;
  out.slice_ptr_ = slice_ptr_.to(space);
  out.slice_width_ = slice_width_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.row_len_ = row_len_.to(space);
  out.perm_ = perm_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Sell<T, I>::Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr, Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len, Array<I> perm, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      slice_size_(slice_size),
      sigma_(sigma),
      threads_per_row_(threads_per_row),
      slice_ptr_(std::move(slice_ptr)),
      slice_width_(std::move(slice_width)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)),
      perm_(std::move(perm)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Sell)

}  // namespace spx
