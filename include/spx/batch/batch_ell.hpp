// BatchEll: many ELLPACK-R matrices, arrays concatenated. Matrix i has its own
// width w_i (its longest row, or more) and stores rows(i) x w_i slots in column
// major order (slot (r, j) at value_offsets[i] + j * rows(i) + r), so that the
// threads of a block, one per row, read consecutive addresses. Row lengths
// (row_len, concatenated by row offsets) say how many slots of each row hold
// entries; the slots beyond a row's length are padding that no kernel reads
// (their contents are not validated).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spx/batch/base.hpp"
#include "spx/formats/base.hpp"
#include "spx/formats/csr.hpp"

namespace spx {

template <Value T, Index I>
class BatchEll : public detail::BatchBase {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Ell;

  BatchEll() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// row and column offsets as for BatchCsr; widths has count entries >= 0;
  /// row_len has total_rows entries, each in [0, width of its matrix];
  /// col_idx and values have sum(rows(i) x width(i)) slots; within a row's
  /// length, column indices lie in [0, cols(i)) and increase strictly.
  BatchEll(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets, Array<I> widths,
           Array<I> row_len, Array<I> col_idx, Array<T> values, Check check = Check::Full);

  /// Concatenates valid CSR matrices (all in one space), each padded to its
  /// own longest row (padding: column 0, value 0).
  static BatchEll from_matrices(std::span<const Csr<T, I>> matrices);

  /// Width of matrix i (slots per row).
  std::int64_t width(std::int64_t i) const;
  std::span<const I> host_widths() const noexcept { return widths_; }

  const Array<I>& row_len() const noexcept { return row_len_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }

  /// Stored slots (padding included) over the batch.
  std::int64_t slots() const noexcept { return host_value_offsets().back(); }

  /// row_len, col_idx and values (padding included) and the offsets.
  std::size_t bytes() const noexcept {
    return row_len_.bytes() + col_idx_.bytes() + values_.bytes() + offset_bytes();
  }

  /// Matrix i as CSR (exact: padding never becomes an entry), in space().
  Csr<T, I> csr(std::int64_t i) const;

  BatchEll to(Space space) const;
  BatchEll clone() const { return to(space_); }

 private:
  std::vector<I> widths_;
  Array<I> row_len_;
  Array<I> col_idx_;
  Array<T> values_;
};

}  // namespace spx
