// CSR: compressed sparse rows. Column indices are sorted and unique within
// each row (validated), which several conversions and kernels rely on.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Csr : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Csr;

  /// The empty 0×0 matrix.
  Csr() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// `row_ptr` has rows+1 entries starting at 0, non-decreasing, ending at nnz;
  /// `col_idx` and `values` have nnz entries; column indices lie in [0, cols)
  /// and increase strictly within each row. Violations raise InvalidInput
  /// naming the array, the position and the value.
  Csr(I rows, I cols, Array<I> row_ptr, Array<I> col_idx, Array<T> values,
      Check check = Check::Full);

  /// A CSR over the caller's arrays in `space`, without a copy: row_ptr has
  /// rows+1 entries, col_idx and values nnz. Validated as above unless
  /// `check` is Check::Trusted; see "Views" in formats/base.hpp for the
  /// contract (lifetime, const, values changed in place).
  static Csr view(I rows, I cols, std::span<const I> row_ptr, std::span<const I> col_idx,
                  std::span<const T> values, Space space = Space::Host, Check check = Check::Full) {
    return Csr(rows, cols, detail::view_of("CSR", "row_ptr", row_ptr, space),
               detail::view_of("CSR", "col_idx", col_idx, space),
               detail::view_of("CSR", "values", values, space), check);
  }

  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(col_idx_.size()); }
  const Array<I>& row_ptr() const noexcept { return row_ptr_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place; the structure may not.
  Array<T>& values() noexcept { return values_; }

  /// Bytes the product reads from the matrix: row_ptr, col_idx, values.
  std::size_t bytes() const noexcept {
    return row_ptr_.bytes() + col_idx_.bytes() + values_.bytes();
  }
  Csr to(Space space) const;
  Csr clone() const { return to(this->space_); }

 private:
  Array<I> row_ptr_{Array<I>::filled(1, I{0})};
  Array<I> col_idx_;
  Array<T> values_;
};

}  // namespace spx
