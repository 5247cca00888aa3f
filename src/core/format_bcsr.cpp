// Construction and validation of BCSR.
#include "spx/formats/bcsr.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "core/padded.hpp"

namespace spx {

template <Value T, Index I>
Bcsr<T, I>::Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col,
                 Array<T> values, ExplicitZeros<I> zeros, Check check)
    : detail::FormatBase<I>(rows, cols, values.space()),
      block_size_(block_size),
      block_ptr_(std::move(block_ptr)),
      block_col_(std::move(block_col)),
      values_(std::move(values)),
      zeros_(detail::adopt_zeros(std::move(zeros), values_.space())) {
  if (check == Check::Full) {
    detail::check_shape("BCSR", rows, cols);
    if (block_size < 1 || block_size > kMaxBlockSize)
      throw InvalidInput(
          fmt::format("BCSR: block_size = {} is out of range [1, {}]", block_size, kMaxBlockSize));
    detail::check_same_space("BCSR", {values_.space(), block_ptr_.space(), block_col_.space(),
                                      zeros_.rows.space(), zeros_.cols.space()});
    const std::int64_t m = rows, n = cols, b = block_size;
    const std::int64_t mb = (m + b - 1) / b, nb = (n + b - 1) / b;
    if (static_cast<std::int64_t>(block_ptr_.size()) != mb + 1)
      throw InvalidInput(fmt::format(
          "BCSR: block_ptr has {} entries, expected block rows + 1 = ceil({} / {}) + 1 = {}",
          block_ptr_.size(), m, b, mb + 1));
    const std::vector<I> ptr = block_ptr_.to_vector();
    const std::vector<I> col = block_col_.to_vector();
    if (ptr[0] != 0) throw InvalidInput(fmt::format("BCSR: block_ptr[0] = {}, expected 0", ptr[0]));
    for (std::int64_t R = 0; R < mb; ++R)
      if (ptr[R + 1] < ptr[R])
        throw InvalidInput(
            fmt::format("BCSR: block_ptr decreases at block row {}: block_ptr[{}] "
                        "= {} < block_ptr[{}] = {}",
                        R, R + 1, ptr[R + 1], R, ptr[R]));
    if (static_cast<std::size_t>(ptr[mb]) != col.size())
      throw InvalidInput(fmt::format("BCSR: block_ptr[{}] = {} but block_col has {} entries", mb,
                                     ptr[mb], col.size()));
    for (std::int64_t R = 0; R < mb; ++R)
      for (std::int64_t k = ptr[R]; k < ptr[R + 1]; ++k) {
        if (col[k] < 0 || col[k] >= nb)
          throw InvalidInput(fmt::format(
              "BCSR: block_col[{}] = {} in block row {} is out of range [0, {}) (ceil({} / {}))", k,
              col[k], R, nb, n, b));
        if (k > ptr[R] && col[k] <= col[k - 1])
          throw InvalidInput(fmt::format(
              "BCSR: block columns not strictly increasing in block row {}: block_col[{}] = {} "
              "after {}",
              R, k, col[k], col[k - 1]));
      }
    const std::int64_t expected =
        detail::checked_mul(static_cast<std::int64_t>(col.size()), b * b, "BCSR values");
    if (static_cast<std::int64_t>(values_.size()) != expected)
      throw InvalidInput(
          fmt::format("BCSR: values has {} entries, expected blocks x b^2 = {} x "
                      "{} = {}",
                      values_.size(), col.size(), b * b, expected));
    const std::vector<T> val = values_.to_vector();
    // Positions past the last row or column (only in the last block row or
    // block column) must hold zero.
    if (m % b != 0 || n % b != 0) {
      for (std::int64_t R = 0; R < mb; ++R)
        for (std::int64_t k = ptr[R]; k < ptr[R + 1]; ++k)
          for (std::int64_t c = 0; c < b; ++c)
            for (std::int64_t r = 0; r < b; ++r) {
              const std::int64_t i = R * b + r, j = col[k] * b + c;
              const std::int64_t p = k * b * b + c * b + r;
              if ((i >= m || j >= n) && val[p] != T{0})
                throw InvalidInput(fmt::format(
                    "BCSR: values[{}] = {} (block {}, local row {}, column {}) lies past the {}x{} "
                    "matrix (at ({}, {})) and must be 0",
                    p, val[p], k, r, c, m, n, i, j));
            }
    }
    detail::check_explicit_zeros<T, I>(
        "BCSR", m, n, zeros_, val, [&](std::int64_t i, std::int64_t j) -> std::int64_t {
          const std::int64_t R = i / b;
          const auto first = col.begin() + ptr[R], last = col.begin() + ptr[R + 1];
          const auto it = std::lower_bound(first, last, static_cast<I>(j / b));
          if (it == last || *it != j / b) return -1;
          return (it - col.begin()) * b * b + (j % b) * b + (i % b);
        });
    nnz_ = detail::count_nonzero(val.data(), val.size()) + static_cast<std::int64_t>(zeros_.size());
  } else {
    nnz_ = detail::count_nonzero(values_) + static_cast<std::int64_t>(zeros_.size());
  }
}

template <Value T, Index I>
Bcsr<T, I> Bcsr<T, I>::to(Space space) const {
  Bcsr out;
  out.rows_ = this->rows_;
  out.cols_ = this->cols_;
  out.space_ = space;
  out.block_size_ = block_size_;
  out.block_ptr_ = block_ptr_.to(space);
  out.block_col_ = block_col_.to(space);
  out.values_ = values_.to(space);
  out.zeros_ = zeros_.to(space);
  out.nnz_ = nnz_;
  return out;
}

template <Value T, Index I>
Bcsr<T, I>::Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col, Array<T> values, ExplicitZeros<I> zeros, Known known)
    : detail::FormatBase<I>(rows, cols, values.space()),
      block_size_(block_size),
      block_ptr_(std::move(block_ptr)),
      block_col_(std::move(block_col)),
      values_(std::move(values)),
      zeros_(std::move(zeros)) {
  nnz_ = known.nnz;
}

SPX_INSTANTIATE_CLASS(Bcsr)

}  // namespace spx
