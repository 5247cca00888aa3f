// COO: coordinate triplets. Any order and duplicate entries are allowed (they
// are summed by conversions and by the product); `sorted()` tells whether the
// entries are in row-major order with no duplicates, which lets kernels split
// the work without races.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Coo : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Coo;

  Coo() = default;
  /// Takes ownership and validates: the three arrays have equal length; rows in
  /// [0, rows), columns in [0, cols).
  Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values,
      Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Coo(I rows, I cols, Array<I> row_idx, Array<I> col_idx, Array<T> values, Known known);

  /// A COO over the caller's arrays in `space`, without a copy (three arrays
  /// of nnz entries). Validated as above unless `check` is Check::Trusted;
  /// see "Views" in formats/base.hpp for the contract.
  static Coo view(I rows, I cols, std::span<const I> row_idx, std::span<const I> col_idx,
                  std::span<const T> values, Space space = Space::Host, Check check = Check::Full) {
    return Coo(rows, cols, detail::view_of("COO", "row_idx", row_idx, space),
               detail::view_of("COO", "col_idx", col_idx, space),
               detail::view_of("COO", "values", values, space), check);
  }

  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(values_.size()); }
  const Array<I>& row_idx() const noexcept { return row_idx_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }
  /// Entries in strictly increasing (row, column) order.
  bool sorted() const noexcept { return sorted_; }

  std::size_t bytes() const noexcept {
    return row_idx_.bytes() + col_idx_.bytes() + values_.bytes();
  }
  Coo to(Space space) const;
  Coo clone() const { return to(this->space_); }

 private:
  Array<I> row_idx_;
  Array<I> col_idx_;
  Array<T> values_;
  bool sorted_ = true;
};

}  // namespace spx
