// SELL-pack: SELL-C-σ / SELL-P (sell.hpp) with compressed column indices.
// The slices, their widths, the values, the row lengths and the permutation
// are SELL's, array for array; only the column indices differ. A slice whose
// true entries' columns lie within 65536 of each other (largest − smallest
// ≤ 65535) is *packed*: its column indices are stored as 16-bit offsets from
// the slice's base column, the smallest of them, in `col16`; the other slices
// (*fallback* slices) keep full indices of type I in `col_idx`. Both arrays
// are column-major inside the slice like `values`, so entry j of slot r of
// slice s sits at
//
//   values [slice_ptr[s]              + j*C + r]
//   col16  [pack_ptr[s]               + j*C + r]   (packed:   column = slice_base[s] + offset)
//   col_idx[slice_ptr[s] − pack_ptr[s] + j*C + r]   (fallback: slice_base[s] = −1)
//
// pack_ptr[s] counts the entries of the packed slices before s, so
// slice_ptr[s] − pack_ptr[s] counts those of the fallback slices before s:
// each slice's indices start where the previous slice of its kind ended.
//
//   slice 0 (packed, base 1000)   slice 1 (fallback)      slice 2 (packed, base 7)
//   values  [v v v v | v v v v]   [v v v v | v v v v]     [v v v v]
//   col16   [o o o o | o o o o]          (none)           [o o o o]
//   col_idx        (none)         [c c c c | c c c c]            (none)
//   pack_ptr = {0, 8, 8, 12}, slice_ptr = {0, 8, 16, 20}, slice_base = {1000, -1, 7}
//
// Footprint per stored entry: sizeof(T) + 2 bytes in packed slices (10 for
// double, 6 for float with any index type) instead of sizeof(T) + sizeof(I)
// (12 and 8 with 32-bit indices); 3·slices + 1 more index entries than SELL.
// The base is per slice, not per row: the benchmark suite's generated and
// real matrices compress the same slices either way (rows of a slice are
// consecutive, or within one window of σ rows), and a per-row base would cost
// rows·sizeof(I) bytes more (docs/architecture.md, "SELL-pack").
//
// Padding entries hold a zero value and offset 0 (the base column) in packed
// slices, SELL's padding column in fallback slices. A slice of width 0 is
// packed with base 0.
#pragma once

#include <cstdint>

#include "spx/formats/base.hpp"

namespace spx {

template <Value T, Index I>
class SellPack : public detail::FormatBase<I> {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::SellPack;
  /// Largest column span (largest − smallest column) of a packed slice.
  static constexpr std::int64_t kMaxSpan = 65535;

  SellPack() = default;
  /// Takes ownership and validates: SELL's invariants (sell.hpp) for
  /// slice_size, sigma, threads_per_row, slice_ptr, slice_width, values,
  /// row_len and perm; `slice_base` holds one entry per slice, −1 (fallback)
  /// or a column in [0, cols); `pack_ptr` holds slices + 1 entries, starts at
  /// 0 and steps by C×slice_width[s] for packed slices, 0 for fallback ones;
  /// `col16` holds pack_ptr[last] offsets and `col_idx` slice_ptr[last] −
  /// pack_ptr[last] indices; every decoded column (padding included) lies in
  /// [0, cols) and increases strictly along each row's true entries.
  SellPack(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
           Array<I> slice_width, Array<I> slice_base, Array<I> pack_ptr, Array<std::uint16_t> col16,
           Array<I> col_idx, Array<T> values, Array<I> row_len, Array<I> perm,
           Check check = Check::Full);
  /// Arrays the caller assembled itself (SpX's device conversions), with the
  /// counts it knows: no validation, and the arrays are not read.
  SellPack(I rows, I cols, int slice_size, int sigma, int threads_per_row, Array<I> slice_ptr,
           Array<I> slice_width, Array<I> slice_base, Array<I> pack_ptr, Array<std::uint16_t> col16,
           Array<I> col_idx, Array<T> values, Array<I> row_len, Array<I> perm, Known known);

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
  /// num_slices()+1 offsets into values.
  const Array<I>& slice_ptr() const noexcept { return slice_ptr_; }
  const Array<I>& slice_width() const noexcept { return slice_width_; }
  /// Base column of each packed slice; −1 marks a fallback slice.
  const Array<I>& slice_base() const noexcept { return slice_base_; }
  /// num_slices()+1 offsets into col16 (entries of the packed slices before s).
  const Array<I>& pack_ptr() const noexcept { return pack_ptr_; }
  /// 16-bit column offsets of the packed slices.
  const Array<std::uint16_t>& col16() const noexcept { return col16_; }
  /// Full column indices of the fallback slices.
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }
  /// Length of stored row i (in stored order).
  const Array<I>& row_len() const noexcept { return row_len_; }
  /// perm[i] = original row of stored row i; empty = identity.
  const Array<I>& perm() const noexcept { return perm_; }

  /// Stored entries (padding included) = slice_ptr[num_slices].
  std::int64_t stored() const noexcept { return static_cast<std::int64_t>(values_.size()); }
  /// Stored entries in packed slices = pack_ptr[num_slices].
  std::int64_t packed() const noexcept { return static_cast<std::int64_t>(col16_.size()); }

  /// stored·sizeof T + packed·2 + (stored − packed)·sizeof I
  /// + (4·slices + 2 + rows)·sizeof I (+ rows·sizeof I for perm when σ > 1).
  std::size_t bytes() const noexcept {
    return slice_ptr_.bytes() + slice_width_.bytes() + slice_base_.bytes() + pack_ptr_.bytes() +
           col16_.bytes() + col_idx_.bytes() + values_.bytes() + row_len_.bytes() + perm_.bytes();
  }
  SellPack to(Space space) const;
  SellPack clone() const { return to(this->space_); }

 private:
  int slice_size_ = 32;
  int sigma_ = 1;
  int threads_per_row_ = 1;
  Array<I> slice_ptr_{Array<I>::filled(1, I{0})};
  Array<I> slice_width_;
  Array<I> slice_base_;
  Array<I> pack_ptr_{Array<I>::filled(1, I{0})};
  Array<std::uint16_t> col16_;
  Array<I> col_idx_;
  Array<T> values_;
  Array<I> row_len_;
  Array<I> perm_;
  std::int64_t nnz_ = 0;
};

}  // namespace spx
