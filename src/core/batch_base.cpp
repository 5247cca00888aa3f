// The layout shared by the batch formats, and the checks of user offsets.
#include <algorithm>

#include <fmt/format.h>

#include "core/batch_util.hpp"
#include "spx/batch/base.hpp"

namespace spx::detail {

BatchBase::BatchBase()
    : h_rows_{0}, h_cols_{0}, h_values_{0}, h_nnz_{0}, rows_{0}, cols_{0}, values_{0} {}

namespace {

void check_matrix_index(std::int64_t i, std::int64_t count) {
  if (i < 0 || i >= count)
    throw InvalidInput(fmt::format("batch: matrix index {} out of range [0, {})", i, count));
}

std::int64_t max_extent(const std::vector<std::int64_t>& off) {
  std::int64_t m = 0;
  for (std::size_t i = 0; i + 1 < off.size(); ++i)
    m = std::max(m, off[i + 1] - off[i]);
  return m;
}

}  // namespace

std::int64_t BatchBase::rows(std::int64_t i) const {
  check_matrix_index(i, count());
  return h_rows_[i + 1] - h_rows_[i];
}
std::int64_t BatchBase::cols(std::int64_t i) const {
  check_matrix_index(i, count());
  return h_cols_[i + 1] - h_cols_[i];
}
std::int64_t BatchBase::nnz(std::int64_t i) const {
  check_matrix_index(i, count());
  return h_nnz_[i + 1] - h_nnz_[i];
}

void BatchBase::set_layout(std::vector<std::int64_t> rows, std::vector<std::int64_t> cols,
                           std::vector<std::int64_t> values, std::vector<std::int64_t> nnz,
                           Space space) {
  if (rows.empty() || rows.size() != cols.size() || rows.size() != values.size() ||
      rows.size() != nnz.size())
    throw InternalError("batch layout: offset arrays of different lengths");
  max_rows_ = max_extent(rows);
  max_cols_ = max_extent(cols);
  max_nnz_ = max_extent(nnz);
  space_ = space;
  rows_ = Array<std::int64_t>(std::span<const std::int64_t>(rows), space);
  cols_ = Array<std::int64_t>(std::span<const std::int64_t>(cols), space);
  values_ = Array<std::int64_t>(std::span<const std::int64_t>(values), space);
  h_rows_ = std::move(rows);
  h_cols_ = std::move(cols);
  h_values_ = std::move(values);
  h_nnz_ = std::move(nnz);
  cache_ = std::make_shared<StructureCache>();
}

void BatchBase::copy_layout_from(const BatchBase& other, Space space) {
  space_ = space;
  h_rows_ = other.h_rows_;
  h_cols_ = other.h_cols_;
  h_values_ = other.h_values_;
  h_nnz_ = other.h_nnz_;
  rows_ = other.rows_.to(space);
  cols_ = other.cols_.to(space);
  values_ = other.values_.to(space);
  max_rows_ = other.max_rows_;
  max_cols_ = other.max_cols_;
  max_nnz_ = other.max_nnz_;
  cache_ = std::make_shared<StructureCache>();
}

namespace {

/// Host copy of user offsets: `expected_size` entries (any number >= 1 when
/// negative), from 0, non-decreasing.
std::vector<std::int64_t> checked_prefix_sums(std::string_view format, std::string_view name,
                                              const Array<std::int64_t>& offsets,
                                              std::int64_t expected_size) {
  std::vector<std::int64_t> off = offsets.to_vector();
  if (off.empty())
    throw InvalidInput(
        fmt::format("{}: {} is empty; it needs count + 1 entries (a single 0 for an empty batch)",
                    format, name));
  const auto size = static_cast<std::int64_t>(off.size());
  if (expected_size >= 0) check_length(format, name, size, expected_size, "count + 1");
  check_monotone({format, name, "", "matrix", ""}, off.data(), size - 1);
  return off;
}

/// Throws InvalidInput unless every matrix's extent (rows, columns,
/// nonzeros) fits the index type.
void check_extents_fit(std::string_view format, const std::vector<std::int64_t>& offsets,
                       std::string_view what, std::int64_t index_max) {
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    if (offsets[i + 1] - offsets[i] > index_max)
      throw InvalidInput(
          fmt::format("{}: matrix {} has {} {}, which does not fit the index type (max {})", format,
                      i, offsets[i + 1] - offsets[i], what, index_max));
}

}  // namespace

BatchOffsets checked_offsets(std::string_view format, const Array<std::int64_t>& row_offsets,
                             const Array<std::int64_t>& col_offsets,
                             const Array<std::int64_t>* nnz_offsets, std::int64_t index_max) {
  BatchOffsets off;
  off.rows = checked_prefix_sums(format, "row_offsets", row_offsets, -1);
  const auto size = static_cast<std::int64_t>(off.rows.size());
  off.cols = checked_prefix_sums(format, "col_offsets", col_offsets, size);
  if (nnz_offsets) off.nnz = checked_prefix_sums(format, "nnz_offsets", *nnz_offsets, size);
  check_extents_fit(format, off.rows, "rows", index_max);
  check_extents_fit(format, off.cols, "columns", index_max);
  check_extents_fit(format, off.nnz, "nonzeros", index_max);
  return off;
}

}  // namespace spx::detail
