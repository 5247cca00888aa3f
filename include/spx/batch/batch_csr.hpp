// BatchCsr: many CSR matrices, arrays concatenated.
//
// General batch: matrix i has its own row pointer (rows(i)+1 entries starting
// at 0, local to the matrix), stored at row_ptr[row_offsets[i] + i]; its column
// indices and values at [nnz_offsets[i], nnz_offsets[i+1]) of col_idx and
// values, column indices local to the matrix. So row_ptr has total_rows + count
// entries and col_idx / values have nnz entries.
//
// Uniform batch (`BatchCsr::uniform`): every matrix has one shape and one
// sparsity pattern; row_ptr and col_idx are stored once and values hold count
// x nnz entries (matrix i's values at i x nnz). Kernels read the shared pattern
// once per matrix from cache instead of once per matrix from memory.
#pragma once

#include <cstdint>
#include <span>

#include "spx/batch/base.hpp"
#include "spx/formats/base.hpp"
#include "spx/formats/csr.hpp"

namespace spx {

template <Value T, Index I>
class BatchCsr : public detail::BatchBase {
 public:
  using value_type = T;
  using index_type = I;
  static constexpr Format kFormat = Format::Csr;

  /// The empty batch (no matrices).
  BatchCsr() = default;
  /// Takes ownership of the arrays (all in one space) and validates them:
  /// the three offset arrays have count+1 entries, start at 0 and never
  /// decrease; row_ptr has total_rows + count entries, col_idx and values
  /// nnz_offsets[count]; every matrix's rows, columns and nonzeros fit I; each
  /// matrix's row pointer starts at 0, never decreases and ends at its
  /// nonzeros; its column indices lie in [0, cols(i)) and increase strictly
  /// within each row. Violations raise InvalidInput naming the matrix, the
  /// array, the position and the value.
  BatchCsr(Array<std::int64_t> row_offsets, Array<std::int64_t> col_offsets,
           Array<std::int64_t> nnz_offsets, Array<I> row_ptr, Array<I> col_idx, Array<T> values,
           Check check = Check::Full);

  /// A uniform batch: `count` matrices of shape rows x cols sharing the
  /// pattern (row_ptr, col_idx), with values holding count x nnz entries
  /// (matrix after matrix). Validated like a single CSR matrix.
  static BatchCsr uniform(std::int64_t count, I rows, I cols, Array<I> row_ptr, Array<I> col_idx,
                          Array<T> values, Check check = Check::Full);

  /// Concatenates valid CSR matrices (all in one space; the batch is placed
  /// there). Never uniform, even when the patterns agree.
  static BatchCsr from_matrices(std::span<const Csr<T, I>> matrices);

  /// True for a batch built by `uniform`.
  bool is_uniform() const noexcept { return uniform_; }

  const Array<I>& row_ptr() const noexcept { return row_ptr_; }
  const Array<I>& col_idx() const noexcept { return col_idx_; }
  const Array<T>& values() const noexcept { return values_; }
  /// Values may be changed in place (same length); the structure may not.
  Array<T>& values() noexcept { return values_; }

  /// Bytes a product reads from the batch: row_ptr, col_idx, values and the
  /// row, column and value offsets.
  std::size_t bytes() const noexcept {
    return row_ptr_.bytes() + col_idx_.bytes() + values_.bytes() + offset_bytes();
  }

  /// Matrix i as a CSR matrix in space() (a copy).
  Csr<T, I> csr(std::int64_t i) const;

  BatchCsr to(Space space) const;
  BatchCsr clone() const { return to(space_); }

 private:
  Array<I> row_ptr_;
  Array<I> col_idx_;
  Array<T> values_;
  bool uniform_ = false;
};

}  // namespace spx
