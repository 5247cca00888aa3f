// Construction and validation of DIA.
#include "spx/formats/dia.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Dia<T, I>::Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros,
               Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())) {
  if (check == Check::Full) {
    detail::check_shape("DIA", rows, cols);
    detail::check_same_space(
        "DIA", {values_.space(), offsets_.space(), zeros_.rows.space(), zeros_.cols.space()});
    const std::vector<I> off = offsets_.to_vector();
    const std::int64_t m = rows, n = cols, nd = static_cast<std::int64_t>(off.size());
    for (std::int64_t d = 0; d < nd; ++d) {
      if (off[d] <= -m || off[d] >= n)
        throw InvalidInput(fmt::format(
            "DIA: offsets[{}] = {} is out of range ({}, {}): the diagonal misses the {}x{} "
            "matrix",
            d, off[d], -m, n, m, n));
      if (d > 0 && off[d] <= off[d - 1])
        throw InvalidInput(fmt::format(
            "DIA: offsets not strictly increasing: offsets[{}] = {} after offsets[{}] = {}", d,
            off[d], d - 1, off[d - 1]));
    }
    const std::int64_t expected = detail::checked_mul(m, nd, "DIA values (rows x diagonals)");
    if (static_cast<std::int64_t>(values_.size()) != expected)
      throw InvalidInput(
          fmt::format("DIA: values has {} entries, expected rows x diagonals = {} x {} = {}",
                      values_.size(), m, nd, expected));
    const std::vector<T> val = values_.to_vector();
    for (std::int64_t d = 0; d < nd; ++d) {
      // Rows whose column i + off[d] falls outside [0, n) must hold zero.
      const std::int64_t lo = std::max<std::int64_t>(0, -off[d]);
      const std::int64_t hi = std::min<std::int64_t>(m, n - off[d]);
      for (std::int64_t i = 0; i < m; ++i) {
        if (i >= lo && i < hi) continue;
        const T v = val[d * m + i];
        if (v != T{0})
          throw InvalidInput(fmt::format(
              "DIA: values[{}] = {} (row {} of diagonal {}, offset {}) lies outside the matrix "
              "(column {}) and must be 0",
              d * m + i, v, i, d, off[d], i + off[d]));
      }
    }
    detail::check_explicit_zeros<T, I>(
        "DIA", m, n, zeros_, val, [&](std::int64_t i, std::int64_t j) -> std::int64_t {
          const auto it = std::lower_bound(off.begin(), off.end(), static_cast<I>(j - i));
          if (it == off.end() || *it != j - i) return -1;
          return (it - off.begin()) * m + i;
        });
    nnz_ = detail::count_nonzero(val.data(), val.size()) + static_cast<std::int64_t>(zeros_.size());
  } else {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
  }
}

template <Value T, Index I>
Dia<T, I> Dia<T, I>::to(Space space) const {
  Dia out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.offsets_ = offsets_.to(space);
  out.values_ = values_.to(space);
  out.zeros_ = zeros_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Dia<T, I>::Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      offsets_(std::move(offsets)),
      values_(std::move(values)),
      zeros_(std::move(zeros)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Dia)

}  // namespace spx
