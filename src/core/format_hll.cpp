// Construction and validation of HLL (Hacked ELLPACK).
#include "spx/formats/hll.hpp"

#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/format_ellpack.hpp"
#include "core/instantiate.hpp"

namespace spx {

template <Value T, Index I>
Hll<T, I>::Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values,
               Array<I> row_len, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)) {
  const std::vector<I> len = row_len_.to_vector();
  if (check == Check::Trusted) {
    nnz_ = std::accumulate(len.begin(), len.end(), std::int64_t{0});
    return;
  }
  constexpr std::string_view F = "HLL";
  detail::check_shape(F, rows, cols);
  detail::check_same_space(
      F, {hack_ptr_.space(), col_idx_.space(), values_.space(), row_len_.space()});
  if (hack_size < 1)
    throw InvalidInput(fmt::format("HLL: hack size H = {} must be at least 1", hack_size));
  const std::int64_t H = hack_size;
  const std::int64_t hacks = (std::int64_t{rows} + H - 1) / H;
  if (hack_ptr_.size() != static_cast<std::size_t>(hacks) + 1)
    throw InvalidInput(fmt::format(
        "HLL: hack_ptr has {} entries, expected ceil(rows / H) + 1 = ceil({} / {}) + 1 = {}",
        hack_ptr_.size(), rows, H, hacks + 1));
  if (len.size() != static_cast<std::size_t>(rows))
    throw InvalidInput(
        fmt::format("HLL: row_len has {} entries, expected rows = {}", len.size(), rows));
  const std::vector<I> ptr = hack_ptr_.to_vector();
  if (ptr[0] != 0) throw InvalidInput(fmt::format("HLL: hack_ptr[0] = {}, expected 0", ptr[0]));
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t n = std::min<std::int64_t>(H, rows - h * H);
    const std::int64_t step = std::int64_t{ptr[h + 1]} - ptr[h];
    if (step < 0 || step % n != 0)
      throw InvalidInput(fmt::format(
          "HLL: hack_ptr[{}] - hack_ptr[{}] = {} - {} must be a non-negative multiple of the "
          "hack's {} rows",
          h + 1, h, ptr[h + 1], ptr[h], n));
  }
  const auto stored = static_cast<std::size_t>(ptr[hacks]);
  if (col_idx_.size() != stored || values_.size() != stored)
    throw InvalidInput(
        fmt::format("HLL: col_idx and values must hold hack_ptr[{}] = {} entries (got {} and {})",
                    hacks, stored, col_idx_.size(), values_.size()));
  const std::vector<I> col = col_idx_.to_vector();
  const std::vector<T> val = values_.to_vector();
  nnz_ = 0;
  for (std::int64_t h = 0; h < hacks; ++h) {
    const std::int64_t n = std::min<std::int64_t>(H, rows - h * H);
    nnz_ += detail::check_ell_group<T, I>(F, {ptr[h], n, n, (ptr[h + 1] - ptr[h]) / n, h * H}, col,
                                          val, len, cols);
  }
}

template <Value T, Index I>
Hll<T, I> Hll<T, I>::to(Space space) const {
  Hll out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.hack_size_ = hack_size_;
  out.hack_ptr_ = hack_ptr_.to(space);
  out.col_idx_ = col_idx_.to(space);
  out.values_ = values_.to(space);
  out.row_len_ = row_len_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Hll<T, I>::Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values, Array<I> row_len, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      col_idx_(std::move(col_idx)),
      values_(std::move(values)),
      row_len_(std::move(row_len)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Hll)

}  // namespace spx
