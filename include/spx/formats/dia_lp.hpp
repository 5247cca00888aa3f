// DIA-LP: DIA (dia.hpp) with its values stored in a narrower type than the
// vectors, for the mixed-precision solvers that accept the rounding of A:
// opt-in, never chosen by the advisor or a plan unless the caller allows
// reduced precision (AdvisorOptions / PlanOptions `allow_reduced_precision`).
//
//   DiaLp<double, I>: values stored as float (IEEE binary32),
//   DiaLp<float, I>:  values stored as bfloat16, the bits in std::uint16_t
//
// (the storage of SELL-LP: lowp.hpp, and sell_lp.hpp for why bfloat16). DIA
// reads no column indices, so on banded, stencil and FEM matrices it moves
// about sizeof(T) bytes per nonzero; DIA-LP moves about sizeof(S): half of
// that for f64 (4 bytes instead of 8), where SELL-LP still moves 4 bytes of
// index beside each value.
//
// x, y, the products and the sums stay in T: a stored value is widened
// exactly to T and multiplied there. The layout (values[d * rows + i] =
// A(i, i + offsets[d]), zeros outside the matrix and at absent entries), the
// offsets, the explicit-zero list and the fill limit (the conversion refuses
// what DIA's refuses, with DIA's message) are DIA's: see dia.hpp.
//
// Conversion: DIA's, then each value a is rounded to nearest (ties to even)
// to â = a(1 + δ), |δ| ≤ u_s = 2^-24 (float) or 2^-8 (bfloat16); a finite
// value that rounds past the storage type's largest finite value is refused
// (InvalidInput naming its row, column and value), NaN and ±inf are kept. A
// nonzero value below the storage type's subnormal range rounds to (signed)
// zero: the entry is then kept in the explicit-zero list, so to_csr gives
// back every entry, with the stored values widened exactly (â, not a).
//
// Error bound: SELL-LP's (sell_lp.hpp), with n_i the entries of row i:
//
//   |y_i − y_exact,i| ≤ |α|·u_s·Σ_j|a_ij·x_j|
//                       + (n_i + 4)·eps(T)·((1 + u_s)·|α|·Σ_j|a_ij·x_j| + |β·y0_i|)
//                       + 4·min(T)  [+ |α|·η_s·Σ_j|x_j| for subnormal â]
//
// The padding zeros a DIA row also multiplies add exact zeros (x finite), so
// the terms counted are the row's entries, as for DIA in full precision.
#pragma once

#include <cstdint>

#include "spx/formats/dia.hpp"
#include "spx/formats/lowp.hpp"

namespace spx {

template <Value T, Index I>
class DiaLp : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  using storage_type = reduced_value_t<T>;
  static constexpr Format kFormat = Format::DiaLp;

  DiaLp() = default;
  /// Takes ownership and validates as Dia's constructor does (the values
  /// widened to T for the checks: positions outside the matrix must widen to
  /// zero; every explicit zero must lie on a stored diagonal, its value zero).
  DiaLp(I rows, I cols, Array<I> offsets, Array<storage_type> values, ExplicitZeros<I> zeros = {},
        Check check = Check::Full);
  /// DIA's structure (its values array is dropped) with `values` in its
  /// place: SpX's conversions, which built `structure` themselves; nothing
  /// is validated or read.
  DiaLp(Dia<T, I> structure, Array<storage_type> values);

  /// True entries: the nonzero values plus the explicit zeros (not padding).
  std::int64_t nnz() const noexcept { return d_.nnz(); }
  std::int64_t ndiag() const noexcept { return d_.ndiag(); }
  const Array<I>& offsets() const noexcept { return d_.offsets(); }
  /// The stored values (float, or bfloat16 bits), DIA's layout.
  const Array<storage_type>& values() const noexcept { return values_; }
  Array<storage_type>& values() noexcept { return values_; }
  const ExplicitZeros<I>& explicit_zeros() const noexcept { return d_.explicit_zeros(); }

  /// Bytes the product reads: offsets and values (rows × ndiag entries of
  /// sizeof(storage_type) each).
  std::size_t bytes() const noexcept { return d_.bytes() + values_.bytes(); }
  DiaLp to(Space space) const;
  DiaLp clone() const { return to(this->space_); }

 private:
  Dia<T, I> d_;  ///< the structure; its values array is empty
  Array<storage_type> values_;
};

}  // namespace spx
