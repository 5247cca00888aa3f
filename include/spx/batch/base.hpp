// What every batch format shares: where each matrix starts in y, in x and in
// the value arrays, the batch's memory space, and its structure cache.
//
// A batch holds `count` independent sparse matrices of any size, nonzero count
// and pattern, their arrays concatenated. Indices inside a matrix are local to
// that matrix (a column index of matrix i lies in [0, cols(i))), so each
// matrix's slice of the concatenated arrays is a valid single matrix of index
// type I. The offsets between matrices are 64-bit (`std::int64_t`) whatever I
// is: a batch of small matrices can hold more than 2^31 nonzeros in total even
// when every matrix fits 32-bit indices.
//
// The offsets live in the batch's space (for the kernels) and are mirrored on
// the host (for launch sizing, validation messages and per-matrix queries).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "spx/core/array.hpp"
#include "spx/core/cache.hpp"
#include "spx/core/enums.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

class BatchBase {
 public:
  /// Number of matrices.
  std::int64_t count() const noexcept { return static_cast<std::int64_t>(h_rows_.size()) - 1; }
  /// Sum of the matrices' rows: the length of the concatenated y.
  std::int64_t total_rows() const noexcept { return h_rows_.back(); }
  /// Sum of the matrices' columns: the length of the concatenated x.
  std::int64_t total_cols() const noexcept { return h_cols_.back(); }
  /// Nonzeros over the batch (ELL: without padding).
  std::int64_t nnz() const noexcept { return h_nnz_.back(); }

  /// Shape and nonzeros of matrix i; throws InvalidInput when i is out of range.
  std::int64_t rows(std::int64_t i) const;
  std::int64_t cols(std::int64_t i) const;
  std::int64_t nnz(std::int64_t i) const;

  std::int64_t max_rows() const noexcept { return max_rows_; }
  std::int64_t max_cols() const noexcept { return max_cols_; }
  std::int64_t max_nnz() const noexcept { return max_nnz_; }

  Space space() const noexcept { return space_; }

  /// count+1 prefix sums in space(): matrix i owns y[row_offsets[i], row_offsets[i+1]),
  /// x[col_offsets[i], col_offsets[i+1]) and the value-array slots
  /// [value_offsets[i], value_offsets[i+1]) (CSR, COO: its nonzeros; ELL: its
  /// padded rows x width slots).
  const Array<std::int64_t>& row_offsets() const noexcept { return rows_; }
  const Array<std::int64_t>& col_offsets() const noexcept { return cols_; }
  const Array<std::int64_t>& value_offsets() const noexcept { return values_; }

  /// The same offsets on the host, plus the nonzero prefix sums (equal to the
  /// value offsets except for ELL, whose slots include padding).
  std::span<const std::int64_t> host_row_offsets() const noexcept { return h_rows_; }
  std::span<const std::int64_t> host_col_offsets() const noexcept { return h_cols_; }
  std::span<const std::int64_t> host_value_offsets() const noexcept { return h_values_; }
  std::span<const std::int64_t> host_nnz_offsets() const noexcept { return h_nnz_; }

  /// Preprocessing kept with the batch (kernel schedules, CSR-I starting rows,
  /// cuSPARSE descriptors); see StructureCache.
  StructureCache& structure_cache() const { return *cache_; }

  /// Bytes of the offset arrays a kernel reads (rows, columns, values).
  std::size_t offset_bytes() const noexcept {
    return rows_.bytes() + cols_.bytes() + values_.bytes();
  }

 protected:
  BatchBase();
  BatchBase(BatchBase&&) noexcept = default;
  BatchBase& operator=(BatchBase&&) noexcept = default;
  ~BatchBase() = default;

  /// Installs validated host prefix sums and places copies in `space`.
  void set_layout(std::vector<std::int64_t> rows, std::vector<std::int64_t> cols,
                  std::vector<std::int64_t> values, std::vector<std::int64_t> nnz, Space space);
  /// The same layout in another space (a fresh structure cache).
  void copy_layout_from(const BatchBase& other, Space space);

  Space space_ = Space::Host;

 private:
  std::vector<std::int64_t> h_rows_, h_cols_, h_values_, h_nnz_;
  Array<std::int64_t> rows_, cols_, values_;
  std::int64_t max_rows_ = 0, max_cols_ = 0, max_nnz_ = 0;
  std::shared_ptr<StructureCache> cache_ = std::make_shared<StructureCache>();
};

}  // namespace spx::detail
