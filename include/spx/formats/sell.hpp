// SELL-C-σ / SELL-P: the rows are cut into slices of C consecutive rows, and
// each slice is stored as its own ELL (column-major inside the slice: entry j
// of the slice's row r at slice_ptr[s] + j*C + r), padded to the slice's
// longest row rounded up to a multiple of `threads_per_row` (SELL-P: several
// GPU threads share a row). Before slicing, rows may be sorted by decreasing
// length within windows of σ consecutive rows (σ = 1: original order), which
// groups rows of similar length into a slice and cuts the padding.
//
// Stored row i (slot i of the slices) is original row perm[i]; the product
// writes y[perm[i]], so callers never see permuted vectors. An empty `perm`
// means the identity (σ = 1), and costs no memory.
//
// Every slice has C slots, so the last slice of a matrix whose row count is
// not a multiple of C has empty slots (row length 0, padding only). Padding
// entries hold a zero value and a valid column index (the row's last column,
// or 0); true entries of a row have strictly increasing columns.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class Sell : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Sell;

  Sell() = default;
  /// Takes ownership and validates: slice_size C >= 1; threads_per_row >= 1;
  /// sigma = 1 or a multiple of C; ceil(rows/C) slices; `slice_ptr` starts
  /// at 0 and steps by C×slice_width[s]; `slice_width[s]` is a multiple of
  /// threads_per_row; `col_idx`/`values` hold slice_ptr[last] entries;
  /// `row_len` holds `rows` entries within their slice's width; `perm` is
  /// empty or a permutation of [0, rows) that keeps every row inside its
  /// window of σ rows (with σ = 1 it must be the identity); column indices
  /// (padding included) lie in [0, cols), increase strictly along each row's
  /// true entries; padding values are zero.
  Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
       Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len, Array<I> perm,
       Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  Sell(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
       Array<I> slice_width, Array<I> col_idx, Array<T> values, Array<I> row_len, Array<I> perm,
       Known known);

  /// True entries (padding excluded).
  std::int64_t nnz() const noexcept { return nnz_; }
  /// C: rows per slice.
  int slice_size() const noexcept { return slice_size_; }
  /// σ: the window within which rows were sorted by decreasing length.
  int sigma() const noexcept { return sigma_; }
  /// Each slice's width is a multiple of this (SELL-P).
  int threads_per_row() const noexcept { return threads_per_row_; }
  std::int64_t num_slices() const noexcept {
    return static_cast<std::int64_t>(slice_width_.size());
  }
  /// num_slices()+1 offsets into col_idx/values.
  const Array<I>& slice_ptr() const noexcept { return slice_ptr_; }
  const Array<I>& slice_width() const noexcept { return slice_width_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }
  /// Length of stored row i (in stored order).
  const Array<I>& row_len() const noexcept { return row_len_; }
  /// perm[i] = original row of stored row i; empty = identity.
  const Array<I>& perm() const noexcept { return perm_; }

  /// Stored entries (padding included) = slice_ptr[num_slices].
  std::int64_t stored() const noexcept { return static_cast<std::int64_t>(values_.size()); }

  /// Σ_s C·w_s·(sizeof T + sizeof I) + (2·slices + 1)·sizeof I
  /// + rows·sizeof I (+ rows·sizeof I for perm when σ > 1).
  std::size_t bytes() const noexcept {
    return slice_ptr_.bytes() + slice_width_.bytes() + col_idx_.bytes() + values_.bytes() +
           row_len_.bytes() + perm_.bytes();
  }
  Sell to(Space space) const;
  Sell clone() const { return to(this->space_); }

 private:
  int slice_size_ = 32;
  int sigma_ = 1;
  int threads_per_row_ = 1;
  Array<I> slice_ptr_{Array<I>::filled(1, I{0})};
  Array<I> slice_width_;
  Array<I> col_idx_;
  Array<T> values_;
  Array<I> row_len_;
  Array<I> perm_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
