// SymDia: a symmetric square matrix A = L + D + Lᵀ stored once, as the DIA of
// its lower triangle with the diagonal: the occupied diagonals of offset ≤ 0
// (offset = column − row), strictly increasing, each stored densely over all
// rows:
//
//   values[d * rows + i] = A(i, i + offsets[d])     (offsets[d] ≤ 0)
//
//     A = [ 4 1 0 0 ]      offsets = [-1, 0]
//         [ 1 5 2 0 ]      values  = [0 1 2 3 | 4 5 0 6]   (the first slot of
//         [ 0 2 0 3 ]                                        diagonal -1 lies
//         [ 0 0 3 6 ]                                        outside: padding)
//
// A stored lower entry A(i, i + o), o < 0, stands for itself and its mirror
// A(i + o, i). The product (a thread per row) applies both halves without
// scattering:
//
//   y_i = Σ_d L_d[i] · x[i + o_d]  +  Σ_{d: o_d < 0} L_d[i − o_d] · x[i − o_d]
//
// where L_d[i] = values[d * rows + i]; the second sum reads the mirrored upper
// part A(i, i − o) = A(i − o, i) from the same diagonal, |o| rows further on
// (on a GPU an L2 hit: each value leaves memory once).
//
// Positions outside the matrix and absent entries hold zero. Entries stored
// with the value zero (in the lower triangle) are kept in an ExplicitZeros
// side list, as DIA does, so that conversion back to CSR is exact. nnz() is
// the number of entries of the full matrix (2·stored() − diagonal entries);
// stored() counts the entries kept (nonzero values plus explicit zeros).
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"
#include "spx/formats/explicit_zeros.hpp"

namespace spx {

template <Value T, Index I>
class SymDia : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::SymDia;

  /// The empty 0×0 matrix.
  SymDia() = default;
  /// Takes ownership of the arrays (all in one space) of an n×n symmetric
  /// matrix's lower diagonals and validates them: offsets strictly
  /// increasing, each in (−n, 0]; values has n × ndiag entries, zero at
  /// positions outside the matrix; every explicit zero lies on a stored
  /// diagonal (so in the lower triangle) and its value there is zero.
  /// Violations raise InvalidInput naming the array, the position and the
  /// value.
  SymDia(I n, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros = {},
         Check check = Check::Full);
  /// Arrays the caller assembled itself (the conversions), with the full
  /// matrix's entry count and the diagonal entries known: no validation, and
  /// the arrays are not read.
  SymDia(I n, Array<I> offsets, Array<T> values, ExplicitZeros<I> zeros, Known known,
         std::int64_t diagonal_entries);

  /// Entries of the full matrix: 2·stored() − (diagonal entries stored).
  std::int64_t nnz() const noexcept { return nnz_; }
  /// Entries stored (lower triangle and diagonal): nonzero values plus
  /// explicit zeros, padding excluded.
  std::int64_t stored() const noexcept { return (nnz_ + diagonal_) / 2; }
  /// Diagonal entries stored.
  std::int64_t diagonal_entries() const noexcept { return diagonal_; }
  std::int64_t ndiag() const noexcept { return static_cast<std::int64_t>(offsets_.size()); }
  const Array<I>& offsets() const noexcept { return offsets_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (a_ij and a_ji change together; padding
  /// must stay zero); the structure may not. The explicit-zero list is not
  /// updated.
  Array<T>& values() noexcept { return values_; }
  const ExplicitZeros<I>& explicit_zeros() const noexcept { return zeros_; }

  /// Bytes the product reads from memory: offsets and values (n × ndiag),
  /// the values counted once: the mirrored read of a value comes |offset|
  /// rows after the first and hits the cache (the L2 on a GPU). About half
  /// of DIA's for a symmetric band.
  std::size_t bytes() const noexcept { return offsets_.bytes() + values_.bytes(); }
  SymDia to(Space space) const;
  SymDia clone() const { return to(this->space_); }

 private:
  Array<I> offsets_;
  Array<T> values_;
  ExplicitZeros<I> zeros_;
  std::int64_t nnz_ = 0;
  std::int64_t diagonal_ = 0;
};

}  // namespace spx
