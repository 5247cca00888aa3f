// CSC: compressed sparse columns; row indices sorted and unique per column.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Csc : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Csc;

  Csc() = default;
  /// Takes ownership and validates, as Csr does with rows and columns swapped.
  Csc(I rows, I cols, Array<I> col_ptr, Array<I> row_idx, Array<T> values,
      Check check = Check::Full);

  /// A CSC over the caller's arrays in `space`, without a copy; as Csr::view
  /// with rows and columns swapped.
  static Csc view(I rows, I cols, std::span<const I> col_ptr, std::span<const I> row_idx,
                  std::span<const T> values, Space space = Space::Host, Check check = Check::Full) {
    return Csc(rows, cols, detail::view_of("CSC", "col_ptr", col_ptr, space),
               detail::view_of("CSC", "row_idx", row_idx, space),
               detail::view_of("CSC", "values", values, space), check);
  }

  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(row_idx_.size()); }
  const Array<I>& col_ptr() const noexcept { return col_ptr_; }
  const Array<I>& row_idx() const noexcept { return row_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }

  std::size_t bytes() const noexcept {
    return col_ptr_.bytes() + row_idx_.bytes() + values_.bytes();
  }
  Csc to(Space space) const;
  Csc clone() const { return to(this->space_); }

 private:
  Array<I> col_ptr_{Array<I>::filled(1, I{0})};
  Array<I> row_idx_;
  Array<T> values_;
};

}  // namespace spx
