// DIA: the occupied diagonals of the matrix, each stored densely.
//
// `offsets` lists the diagonals (offset = column − row), strictly increasing;
// `values` holds rows × ndiag entries, diagonal by diagonal:
//
//   values[d * rows + i] = A(i, i + offsets[d])
//
// so consecutive rows of one diagonal are consecutive in memory (what a GPU
// thread-per-row kernel wants). Positions outside the matrix and absent
// entries hold zero. Value positions can pass the range of the index type
// (rows × ndiag > 2^31 with 32-bit indices), so they are computed in 64 bits.
// Entries stored with the value zero are kept in an ExplicitZeros side list.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"
#include "spx/formats/explicit_zeros.hpp"

namespace spx {

template <Value T, Index I>
class Dia : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Dia;

  /// The empty 0×0 matrix.
  Dia() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// offsets strictly increasing, each in (−rows, cols); values has
  /// rows × ndiag entries, zero at positions outside the matrix; every
  /// explicit zero lies on a stored diagonal and its value there is zero.
  /// Violations raise InvalidInput naming the array, the position and the value.
  Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros = {},
      Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Dia(I rows, I cols, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros, Known known);

  /// True entries: the nonzero values plus the explicit zeros (not padding).
  std::int64_t nnz() const noexcept { return nnz_; }
  std::int64_t ndiag() const noexcept { return static_cast<std::int64_t>(offsets_.size()); }
  const Array<I>& offsets() const noexcept { return offsets_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (padding must stay zero); the structure
  /// may not. The explicit-zero list is not updated.
  Array<T>& values() noexcept { return values_; }
  const ExplicitZeros<I>& explicit_zeros() const noexcept { return zeros_; }

  /// Bytes the product reads: offsets and values (rows × ndiag).
  std::size_t bytes() const noexcept { return offsets_.bytes() + values_.bytes(); }
  Dia to(Space space) const;
  Dia clone() const { return to(this->space_); }

 private:
  Array<I> offsets_;
  Array<T> values_;
  ExplicitZeros<I> zeros_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
