// SELL-LP: SELL-C-σ / SELL-P (sell.hpp) with its values stored in a narrower
// type than the vectors, for the mixed-precision solvers that accept the
// rounding of A: opt-in, never chosen by the advisor or a plan unless the
// caller allows reduced precision (AdvisorOptions / PlanOptions
// `allow_reduced_precision`).
//
//   SellLp<double, I>: values stored as float (IEEE binary32),
//   SellLp<float, I>:  values stored as bfloat16, the bits in std::uint16_t.
//
// bfloat16 rather than half for float: bfloat16 keeps float's exponent range
// (largest finite 3.39e38, smallest normal 1.18e-38), so every matrix a float
// SELL holds converts and its relative rounding is the same for every entry;
// half (largest 65504, smallest normal 6.1e-5) would refuse or flush the
// entries of many matrices in exchange for 3 more mantissa bits.
//
// x, y, the products and the sums stay in T: a stored value is widened
// exactly to T and multiplied there. The layout, the parameters (C, σ,
// threads_per_row), the permutation and the padding are SELL's: see sell.hpp.
//
// Conversion: each value a of the CSR is rounded to nearest (ties to even)
// to â = a(1 + δ) with |δ| ≤ u_s, the unit roundoff of the storage type:
// u_s = 2^-24 (float) or 2^-8 (bfloat16). A finite value whose magnitude
// rounds beyond the storage type's largest finite value (|a| ≥ 3.4028235e38
// · (1 + 2^-25) for float, |a| ≥ 3.3961e38 for bfloat16) is refused:
// InvalidInput naming its row, column and value. NaN and ±inf are kept (as
// every conversion of SpX keeps them). Values below the storage type's
// smallest normal (1.18e-38 for both) round to subnormals or zero with an
// absolute error up to η_s = 2^-150 (float) or 2^-134 (bfloat16) instead of
// the relative u_s; to_csr widens the stored values back (exactly: â, not a).
//
// Error bound (documented, tested, and the benchmark's check): for row i with
// n_i entries, computing y_i = α·Σ_j â_ij x_j + β·y0_i in T (unit roundoff
// u = eps(T)/2; any order of summation, FMA or not),
//
//   |y_i − y_exact,i| ≤ |α|·u_s·Σ_j|a_ij·x_j|
//                       + (n_i + 4)·eps(T)·((1 + u_s)·|α|·Σ_j|a_ij·x_j| + |β·y0_i|)
//                       + 4·min(T)  [+ |α|·η_s·Σ_j|x_j| for subnormal â]
//
// Derivation: y_exact − Σ â x = −Σ δ_ij a_ij x_j, at most u_s·Σ|a x|; the
// computed sum of the products â x (exact in T's range, each rounded once)
// differs from Σ â x by at most γ_{n}·Σ|â x| ≤ (n + 2)·eps·(1 + u_s)·Σ|a x|
// (γ_n = n·u/(1 − n·u) ≤ (n + 2)·eps for n·u < 1/2); the scaling by α, the
// product β·y0 and the final addition add three roundings (SpX's full-
// precision bound, reference.hpp: (n + 4)·eps·(|α|Σ|a x| + |β y0|) + 4·min(T)).
// Relative to Σ|a x| this is u_s + O(n·eps(T)): 6.0e-8 for f64/float values,
// 3.9e-3 for f32/bfloat16 values, instead of n·eps(T).
#pragma once

#include <cstdint>

#include "spx/formats/lowp.hpp"
#include "spx/formats/sell.hpp"

namespace spx {

template <Value T, Index I>
class SellLp : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  using storage_type = reduced_value_t<T>;
  static constexpr Format kFormat = Format::SellLp;

  SellLp() = default;
  /// Takes ownership and validates as Sell's constructor does (the values
  /// widened to T for the checks: padding values must widen to zero).
  SellLp(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
         Array<I> slice_width, Array<I> col_idx, Array<storage_type> values, Array<I> row_len,
         Array<I> perm, Check check = Check::Full);
  /// SELL's structure (its values array is dropped) with `values` in its
  /// place: SpX's conversions, which built `structure` themselves; nothing
  /// is validated or read.
  SellLp(Sell<T, I> structure, Array<storage_type> values);

  std::int64_t nnz() const noexcept { return s_.nnz(); }
  int slice_size() const noexcept { return s_.slice_size(); }
  int sigma() const noexcept { return s_.sigma(); }
  int threads_per_row() const noexcept { return s_.threads_per_row(); }
  std::int64_t num_slices() const noexcept { return s_.num_slices(); }
  const Array<I>& slice_ptr() const noexcept { return s_.slice_ptr(); }
  const Array<I>& slice_width() const noexcept { return s_.slice_width(); }
  const Array<I>& col_idx() const noexcept { return s_.col_idx(); }
  /// The stored values (float, or bfloat16 bits), SELL's layout.
  const Array<storage_type>& values() const noexcept { return values_; }
  Array<storage_type>& values() noexcept { return values_; }
  const Array<I>& row_len() const noexcept { return s_.row_len(); }
  const Array<I>& perm() const noexcept { return s_.perm(); }
  std::int64_t stored() const noexcept { return static_cast<std::int64_t>(values_.size()); }

  /// SELL's bytes with sizeof(storage_type) per stored value instead of
  /// sizeof(T): Σ_s C·w_s·(sizeof S + sizeof I) + (2·slices + 1 + rows
  /// [+ rows for perm])·sizeof I.
  std::size_t bytes() const noexcept { return s_.bytes() + values_.bytes(); }
  SellLp to(Space space) const;
  SellLp clone() const { return to(this->space_); }

 private:
  Sell<T, I> s_;  ///< the structure; its values array is empty
  Array<storage_type> values_;
};

}  // namespace spx
