// BatchCoo: many COO matrices, arrays concatenated. Matrix i's entries are
// [nnz_offsets[i], nnz_offsets[i+1]) of row_idx, col_idx and values, with row
// indices in [0, rows(i)) and column indices in [0, cols(i)) (local to the
// matrix). Like single COO, any order and duplicate entries are allowed
// (duplicates are summed); `sorted()` tells whether every matrix's entries are
// in strictly increasing (row, column) order.
#pragma once

#include <cstdint>
#include <span>

#include "spx/batch/base.hpp"
#include "spx/formats/base.hpp"
#include "spx/formats/coo.hpp"
#include "spx/formats/csr.hpp"

namespace spx {

template <Value T, Index I>
class BatchCoo : public detail::BatchBase {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Coo;

  BatchCoo() = default;
  /// Takes ownership of the arrays (all in one space) and validates them: the
  /// offsets as for BatchCsr; row_idx, col_idx and values have
  /// nnz_offsets[count] entries; every index lies in its matrix's range.
  /// Errors name the matrix, the array, the position and the value.
  BatchCoo(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets,
           Array<std::int64_t> nnz_offsets, Array<I> row_idx, Array<I> col_idx, Array<T> values,
           Check check = Check::Full);

  /// Concatenates valid CSR matrices (all in one space) as sorted COO.
  static BatchCoo from_matrices(std::span<const Csr<T, I>> matrices);

  bool sorted() const noexcept { return sorted_; }
  const Array<I>& row_idx() const noexcept { return row_idx_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  Array<T>& values() noexcept { return values_; }

  /// row_idx, col_idx, values and the offsets.
  std::size_t bytes() const noexcept {
    return row_idx_.bytes() + col_idx_.bytes() + values_.bytes() + offset_bytes();
  }

  /// Matrix i as COO (entries in stored order) and as CSR (sorted, duplicates
  /// summed), in space().
  Coo<T, I> coo(std::int64_t i) const;
  Csr<T, I> csr(std::int64_t i) const;

  BatchCoo to(Space space) const;
  BatchCoo clone() const { return to(space_); }

 private:
  Array<I> row_idx_;
  Array<I> col_idx_;
  Array<T> values_;
  bool sorted_ = true;
};

}  // namespace spx
