// HDI (Hacked DIA): the rows are cut into hacks of H rows, and each hack is
// stored as its own DIA with its own list of diagonals, so that a few far-off
// entries pad only the hack they are in.
//
// Hack h covers rows [h·H, min((h+1)·H, rows)); its hack_rows(h) rows are
// H except for the last hack. Its diagonals are
// offsets[hack_ptr[h] .. hack_ptr[h+1]) (offset = column − row, strictly
// increasing within a hack), and its values start at H · hack_ptr[h] (every
// earlier hack has H rows, so the value start needs no array of its own):
//
//   values[H·hack_ptr[h] + d·hack_rows(h) + r] = A(h·H + r, h·H + r + offsets[hack_ptr[h] + d])
//
// for local diagonal d and local row r: within a hack, consecutive rows are
// consecutive in memory. Value positions are computed in 64 bits. Absent
// entries and positions outside the matrix hold zero; entries stored with the
// value zero are kept in an ExplicitZeros side list.
#pragma once

#include <algorithm>
#include <cstdint>

#include "spx/formats/base.hpp"
#include "spx/formats/explicit_zeros.hpp"

namespace spx {

template <Value T, Index I>
class Hdi : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Hdi;

  /// The empty 0×0 matrix.
  Hdi() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// hack_size ≥ 1; hack_ptr has ceil(rows / hack_size) + 1 entries, starts at
  /// 0, does not decrease and ends at offsets.size(); offsets strictly
  /// increasing within each hack, each in (−rows, cols); values has the size
  /// above, zero at positions outside the matrix; every explicit zero lies on
  /// a diagonal of its hack and its value there is zero. Violations raise
  /// InvalidInput naming the array, the position and the value.
  Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values,
      ExplicitZeros<I> zeros = {}, Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Hdi(I rows, I cols, I hack_size, Array<I> hack_ptr, Array<I> offsets, Array<T> values,
      ExplicitZeros<I> zeros, Known known);

  /// True entries: the nonzero values plus the explicit zeros (not padding).
  std::int64_t nnz() const noexcept { return nnz_; }
  I hack_size() const noexcept { return hack_size_; }
  std::int64_t hacks() const noexcept { return static_cast<std::int64_t>(hack_ptr_.size()) - 1; }
  /// Rows of hack h (hack_size, or fewer for the last hack).
  std::int64_t hack_rows(std::int64_t h) const noexcept {
    return std::min<std::int64_t>(hack_size_, std::int64_t{this->rows_} - h * hack_size_);
  }
  const Array<I>& hack_ptr() const noexcept { return hack_ptr_; }
  const Array<I>& offsets() const noexcept { return offsets_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (padding must stay zero); the structure
  /// may not. The explicit-zero list is not updated.
  Array<T>& values() noexcept { return values_; }
  const ExplicitZeros<I>& explicit_zeros() const noexcept { return zeros_; }

  /// Bytes the product reads: hack_ptr, offsets and values.
  std::size_t bytes() const noexcept {
    return hack_ptr_.bytes() + offsets_.bytes() + values_.bytes();
  }
  Hdi to(Space space) const;
  Hdi clone() const { return to(this->space_); }

 private:
  I hack_size_ = 32;
  Array<I> hack_ptr_{Array<I>::filled(1, I{0})};
  Array<I> offsets_;
  Array<T> values_;
  ExplicitZeros<I> zeros_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
