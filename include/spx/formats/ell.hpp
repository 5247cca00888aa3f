// ELL (ELLPACK-R): every row padded to the width of the longest row, stored
// column-major so that consecutive rows are adjacent in memory (entry j of
// row r at j*rows + r; coalesced on a GPU, contiguous SIMD lanes on a CPU),
// plus the length of each row so that kernels skip the padding.
//
// Padding entries (position j >= row_len[r]) hold a zero value and a valid
// column index (the row's last column, or 0 for an empty row), so that a
// kernel may read them without a bounds check. The true entries of a row
// have strictly increasing column indices, as in CSR.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Ell : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Ell;

  Ell() = default;
  /// Takes ownership and validates: width >= 0; `col_idx` and `values` hold
  /// rows×width entries (column-major); `row_len` holds rows entries in
  /// [0, width]; every column index (padding included) lies in [0, cols); the
  /// true entries of each row have strictly increasing columns; padding
  /// values are zero. Violations raise InvalidInput naming array and position.
  Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len,
      Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Ell(I rows, I cols, I width, Array<I> col_idx, Array<T> values, Array<I> row_len, Known known);

  /// True entries (padding excluded).
  std::int64_t nnz() const noexcept { return nnz_; }
  /// Entries per row as stored (the longest row's length).
  I width() const noexcept { return width_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }
  const Array<I>& row_len() const noexcept { return row_len_; }

  /// rows·width·(sizeof T + sizeof I) + rows·sizeof I.
  std::size_t bytes() const noexcept {
    return col_idx_.bytes() + values_.bytes() + row_len_.bytes();
  }
  Ell to(Space space) const;
  Ell clone() const { return to(this->space_); }

 private:
  I width_ = 0;
  Array<I> col_idx_;
  Array<T> values_;
  Array<I> row_len_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
