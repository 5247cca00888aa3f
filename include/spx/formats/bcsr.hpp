// BCSR: square b×b dense blocks in compressed block rows (BCSR paper, §III-A).
//
// The matrix is seen as ceil(rows/b) × ceil(cols/b) blocks; the blocks that
// hold an entry are stored. Block row R holds blocks
// block_ptr[R] .. block_ptr[R+1], with block columns block_col[k] strictly
// increasing. Each block is column-major:
//
//   values[k·b² + c·b + r] = A(R·b + r, block_col[k]·b + c)
//
// Absent entries hold zero, and so do the positions past the last row or
// column when rows or cols is not a multiple of b (the true shape is kept: the
// product reads x only below cols and writes y only below rows). Block
// positions k·b² are computed in 64 bits. Entries stored with the value zero
// are kept in an ExplicitZeros side list.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"
#include "spx/formats/explicit_zeros.hpp"

namespace spx {

template <Value T, Index I>
class Bcsr : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Bcsr;
  static constexpr int kMaxBlockSize = 32;

  /// The empty 0×0 matrix.
  Bcsr() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// block_size in [1, 32]; block_ptr has ceil(rows/b) + 1 entries, starts at
  /// 0, does not decrease and ends at block_col.size(); block_col in
  /// [0, ceil(cols/b)), strictly increasing within a block row; values has
  /// block_col.size() × b² entries, zero past the last row and column; every
  /// explicit zero lies in a stored block and its value there is zero.
  /// Violations raise InvalidInput naming the array, the position and the value.
  Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col, Array<T> values,
       ExplicitZeros<I> zeros = {}, Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Bcsr(I rows, I cols, int block_size, Array<I> block_ptr, Array<I> block_col, Array<T> values,
       ExplicitZeros<I> zeros, Known known);

  /// True entries: the nonzero values plus the explicit zeros (not padding).
  std::int64_t nnz() const noexcept { return nnz_; }
  int block_size() const noexcept { return block_size_; }
  std::int64_t block_rows() const noexcept {
    return static_cast<std::int64_t>(block_ptr_.size()) - 1;
  }
  std::int64_t blocks() const noexcept { return static_cast<std::int64_t>(block_col_.size()); }
  /// nnz / (blocks × b²): the share of stored values that are entries.
  double fill() const noexcept {
    const double stored = static_cast<double>(values_.size());
    return stored > 0 ? static_cast<double>(nnz_) / stored : 1.0;
  }
  const Array<I>& block_ptr() const noexcept { return block_ptr_; }
  const Array<I>& block_col() const noexcept { return block_col_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (padding must stay zero); the structure
  /// may not. The explicit-zero list is not updated.
  Array<T>& values() noexcept { return values_; }
  const ExplicitZeros<I>& explicit_zeros() const noexcept { return zeros_; }

  /// Bytes the product reads: block_ptr, block_col and values.
  std::size_t bytes() const noexcept {
    return block_ptr_.bytes() + block_col_.bytes() + values_.bytes();
  }
  Bcsr to(Space space) const;
  Bcsr clone() const { return to(this->space_); }

 private:
  int block_size_ = 1;
  Array<I> block_ptr_{Array<I>::filled(1, I{0})};
  Array<I> block_col_;
  Array<T> values_;
  ExplicitZeros<I> zeros_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
