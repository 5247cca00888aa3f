// HLL (Hacked ELLPACK, survey §4.4): the rows are cut into hacks of H
// consecutive rows (H = one warp by default), and each hack is stored as its
// own ELL of the hack's width (its longest row), column-major inside the
// hack: entry j of the hack's row r at hack_ptr[h] + j*rows_h + r, where
// rows_h = H except in a last, partial hack. The hacks are stacked in one
// array; a long row only widens its own hack. No permutation.
//
// Padding entries hold a zero value and a valid column index (the row's last
// column, or 0 for an empty row); true entries of a row have strictly
// increasing columns.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Hll : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Hll;

  Hll() = default;
  /// Takes ownership and validates: hack_size H >= 1; ceil(rows/H) hacks;
  /// `hack_ptr` starts at 0 and each step is a multiple of the hack's row
  /// count (the hack's width); `col_idx`/`values` hold hack_ptr[last]
  /// entries; `row_len` holds `rows` entries within their hack's width;
  /// column indices (padding included) in [0, cols), strictly increasing
  /// along each row's true entries; padding values are zero.
  Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values,
      Array<I> row_len, Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Hll(I rows, I cols, int hack_size, Array<I> hack_ptr, Array<I> col_idx, Array<T> values,
      Array<I> row_len, Known known);

  /// True entries (padding excluded).
  std::int64_t nnz() const noexcept { return nnz_; }
  /// H: rows per hack (the last hack may have fewer).
  int hack_size() const noexcept { return hack_size_; }
  std::int64_t num_hacks() const noexcept {
    return static_cast<std::int64_t>(hack_ptr_.size()) - 1;
  }
  /// num_hacks()+1 offsets into col_idx/values.
  const Array<I>& hack_ptr() const noexcept { return hack_ptr_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }
  const Array<I>& row_len() const noexcept { return row_len_; }

  /// Stored entries (padding included) = hack_ptr[num_hacks].
  std::int64_t stored() const noexcept { return static_cast<std::int64_t>(values_.size()); }

  /// Σ_h rows_h·w_h·(sizeof T + sizeof I) + (hacks + 1)·sizeof I + rows·sizeof I.
  std::size_t bytes() const noexcept {
    return hack_ptr_.bytes() + col_idx_.bytes() + values_.bytes() + row_len_.bytes();
  }
  Hll to(Space space) const;
  Hll clone() const { return to(this->space_); }

 private:
  int hack_size_ = 32;
  Array<I> hack_ptr_{Array<I>::filled(1, I{0})};
  Array<I> col_idx_;
  Array<T> values_;
  Array<I> row_len_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
