// SymCsr: a symmetric square matrix A = L + D + Lᵀ stored once, as the CSR of
// its lower triangle with the diagonal (columns ≤ row, strictly increasing in
// each row, so a row's diagonal entry, when present, is its last):
//
//     A = [ 4 1 0 2 ]      row_ptr = [0, 1, 3, 4, 7]
//         [ 1 5 0 0 ]      col_idx = [0 | 0 1 | 2 | 0 2 3]
//         [ 0 0 0 3 ]      values  = [4 | 1 5 | 0 | 2 3 6]   (a stored zero
//         [ 2 0 3 6 ]                                        stays an entry)
//
// A strictly lower entry a_ij (j < i) stands for a_ij and a_ji; a diagonal
// entry for itself. The product applies both halves: row i gathers its stored
// entries (y_i += a_ij x_j) and scatters the transposed ones (y_j += a_ij x_i).
// nnz() is the number of entries of the full matrix (2·stored − diagonal),
// which conversions, flop counts and comparisons with other formats use;
// stored() is the number of entries kept.
//
// The diagonal stays inside the rows (no separate dense diagonal): a matrix
// with an empty or partly empty diagonal costs nothing for it, and the kernels
// recognise the diagonal entry as the one with column = row.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class SymCsr : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::SymCsr;

  /// The empty 0×0 matrix.
  SymCsr() = default;
  /// Takes ownership of the lower triangle (diagonal included) of an n×n
  /// symmetric matrix and validates it: `row_ptr` has n+1 entries starting
  /// at 0, non-decreasing, ending at the length of `col_idx`/`values`; column
  /// indices of row i lie in [0, i] and increase strictly. Violations raise
  /// InvalidInput naming the array, the position and the value (an entry
  /// above the diagonal is named as such).
  SymCsr(I n, Array<I> row_ptr, Array<I> col_idx, Array<T> values, Check check = Check::Full);
  /// Trusted construction with the full matrix's entry count known (what the
  /// conversions and `to` use: nothing is read, so device arrays stay put).
  SymCsr(I n, Array<I> row_ptr, Array<I> col_idx, Array<T> values, Known known);

  /// Entries of the full matrix: 2·stored() − (diagonal entries stored).
  std::int64_t nnz() const noexcept { return nnz_; }
  /// Entries stored (the lower triangle and the diagonal).
  std::int64_t stored() const noexcept { return static_cast<std::int64_t>(col_idx_.size()); }
  /// Diagonal entries stored.
  std::int64_t diagonal_entries() const noexcept { return 2 * stored() - nnz_; }
  const Array<I>& row_ptr() const noexcept { return row_ptr_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (a_ij and a_ji change together); the
  /// structure may not.
  Array<T>& values() noexcept { return values_; }

  /// Bytes the product reads from the matrix: row_ptr, col_idx, values of
  /// the lower triangle, about half of CSR's.
  std::size_t bytes() const noexcept {
    return row_ptr_.bytes() + col_idx_.bytes() + values_.bytes();
  }
  SymCsr to(Space space) const;
  SymCsr clone() const { return to(this->space_); }

 private:
  Array<I> row_ptr_{Array<I>::filled(1, I{0})};
  Array<I> col_idx_;
  Array<T> values_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
