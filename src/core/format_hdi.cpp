// Construction and validation of HDI.
#include "spx/formats/hdi.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Hdi<T, I>::Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values,
               ExplicitZeros<I> zeros, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())) {
  if (check == Check::Full) {
    detail::check_shape("HDI", rows, cols);
    if (hack_size < 1)
      throw InvalidInput(fmt::format("HDI: hack_size = {}, expected at least 1", hack_size));
    detail::check_same_space("HDI", {values_.space(), hack_ptr_.space(), offsets_.space(),
                                     zeros_.rows.space(), zeros_.cols.space()});
    const std::int64_t m = rows, n = cols, H = hack_size;
    const std::int64_t nh = (m + H - 1) / H;
    if (static_cast<std::int64_t>(hack_ptr_.size()) != nh + 1)
      throw InvalidInput(
          fmt::format("HDI: hack_ptr has {} entries, expected hacks + 1 = ceil({} / {}) + 1 = {}",
                      hack_ptr_.size(), m, H, nh + 1));
    const std::vector<I> ptr = hack_ptr_.to_vector();
    const std::vector<I> off = offsets_.to_vector();
    if (ptr[0] != 0) throw InvalidInput(fmt::format("HDI: hack_ptr[0] = {}, expected 0", ptr[0]));
    for (std::int64_t h = 0; h < nh; ++h)
      if (ptr[h + 1] < ptr[h])
        throw InvalidInput(
            fmt::format("HDI: hack_ptr decreases at hack {}: hack_ptr[{}] = {} < "
                        "hack_ptr[{}] = {}",
                        h, h + 1, ptr[h + 1], h, ptr[h]));
    if (static_cast<std::size_t>(ptr[nh]) != off.size())
      throw InvalidInput(fmt::format("HDI: hack_ptr[{}] = {} but offsets has {} entries", nh,
                                     ptr[nh], off.size()));
    for (std::int64_t h = 0; h < nh; ++h)
      for (std::int64_t d = ptr[h]; d < ptr[h + 1]; ++d) {
        if (off[d] <= -m || off[d] >= n)
          throw InvalidInput(fmt::format(
              "HDI: offsets[{}] = {} (hack {}) is out of range ({}, {}): the diagonal misses the "
              "{}x{} matrix",
              d, off[d], h, -m, n, m, n));
        if (d > ptr[h] && off[d] <= off[d - 1])
          throw InvalidInput(
              fmt::format("HDI: offsets not strictly increasing in hack {}: "
                          "offsets[{}] = {} after offsets[{}] = {}",
                          h, d, off[d], d - 1, off[d - 1]));
      }
    std::int64_t expected = 0;
    if (nh > 0) {
      const std::int64_t last_rows = m - (nh - 1) * H;
      expected = detail::hdi_size<T, I>(H, nh, ptr[nh], last_rows, ptr[nh] - ptr[nh - 1]).values;
    }
    if (static_cast<std::int64_t>(values_.size()) != expected)
      throw InvalidInput(fmt::format(
          "HDI: values has {} entries, expected {} (hack_size x diagonals of every hack but the "
          "last, plus rows x diagonals of the last)",
          values_.size(), expected));
    const std::vector<T> val = values_.to_vector();
    for (std::int64_t h = 0; h < nh; ++h) {
      const std::int64_t r0 = h * H, hr = std::min(H, m - r0);
      for (std::int64_t d = ptr[h]; d < ptr[h + 1]; ++d) {
        const std::int64_t base = H * ptr[h] + (d - ptr[h]) * hr;
        for (std::int64_t r = 0; r < hr; ++r) {
          const std::int64_t j = r0 + r + off[d];
          if (j >= 0 && j < n) continue;
          if (val[base + r] != T{0})
            throw InvalidInput(fmt::format(
                "HDI: values[{}] = {} (row {}, hack {}, offset {}) lies outside the matrix "
                "(column {}) and must be 0",
                base + r, val[base + r], r0 + r, h, off[d], j));
        }
      }
    }
    detail::check_explicit_zeros<T, I>(
        "HDI", m, n, zeros_, val, [&](std::int64_t i, std::int64_t j) -> std::int64_t {
          const std::int64_t h = i / H, hr = std::min(H, m - h * H);
          const auto b = off.begin() + ptr[h], e = off.begin() + ptr[h + 1];
          const auto it = std::lower_bound(b, e, static_cast<I>(j - i));
          if (it == e || *it != j - i) return -1;
          return H * ptr[h] + (it - b) * hr + (i - h * H);
        });
    nnz_ = detail::count_nonzero(val.data(), val.size()) + static_cast<std::int64_t>(zeros_.size());
  } else {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
  }
}

template <Value T, Index I>
Hdi<T, I> Hdi<T, I>::to(Space space) const {
  Hdi out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.hack_size_ = hack_size_;
  out.hack_ptr_ = hack_ptr_.to(space);
  out.offsets_ = offsets_.to(space);
  out.values_ = values_.to(space);
  out.zeros_ = zeros_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Hdi<T, I>::Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      hack_size_(hack_size),
      hack_ptr_(std::move(hack_ptr)),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(std::move(zeros)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Hdi)

}  // namespace spx
