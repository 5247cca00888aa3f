// Helpers shared by the batch formats' definitions (src/core/batch_*.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "spx/batch/base.hpp"
#include "spx/core/array.hpp"

namespace spx::detail {

/// A copy of a[begin, begin+n) in the same space.
template <class U>
Array<U> slice(const Array<U>& a, std::int64_t begin, std::int64_t n) {
  Array<U> out(static_cast<std::size_t>(n), a.space());
  if (n > 0)
    copy_bytes(out.data(), a.space(), a.data() + begin, a.space(),
               static_cast<std::size_t>(n) * sizeof(U));
  return out;
}

/// Throws InvalidInput unless array `name` has `expected` entries.
inline void check_length(std::string_view format, std::string_view name, std::size_t got,
                         std::int64_t expected, std::string_view why) {
  if (static_cast<std::int64_t>(got) != expected)
    throw InvalidInput(
        fmt::format("{}: {} has {} entries, expected {} ({})", format, name, got, expected, why));
}

/// Validates one matrix's compressed rows: ptr[0..m] (at position ptr_pos of
/// the concatenated row_ptr) starts at 0, never decreases and ends at nnz;
/// col[0..nnz) (at position col_pos of col_idx) lies in [0, n) and increases
/// strictly within each row. `who` names the matrix ("matrix 7", "the shared
/// pattern").
template <class I>
void check_csr_matrix(std::string_view format, std::string_view who, const I* ptr,
                      std::int64_t ptr_pos, const I* col, std::int64_t col_pos, std::int64_t m,
                      std::int64_t n, std::int64_t nnz) {
  if (ptr[0] != 0)
    throw InvalidInput(fmt::format("{}: {}: row_ptr[{}] = {} (its row 0), expected 0", format, who,
                                   ptr_pos, ptr[0]));
  for (std::int64_t r = 0; r < m; ++r)
    if (ptr[r + 1] < ptr[r])
      throw InvalidInput(
          fmt::format("{}: {}: row_ptr decreases at its row {}: row_ptr[{}] = {} < "
                      "row_ptr[{}] = {}",
                      format, who, r, ptr_pos + r + 1, ptr[r + 1], ptr_pos + r, ptr[r]));
  if (static_cast<std::int64_t>(ptr[m]) != nnz)
    throw InvalidInput(
        fmt::format("{}: {}: row_ptr[{}] = {} (its end) but the matrix has {} "
                    "nonzeros",
                    format, who, ptr_pos + m, ptr[m], nnz));
  for (std::int64_t r = 0; r < m; ++r) {
    for (std::int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      if (col[k] < 0 || col[k] >= n)
        throw InvalidInput(
            fmt::format("{}: {}: col_idx[{}] = {} in its row {} is out of range "
                        "[0, {})",
                        format, who, col_pos + k, col[k], r, n));
      if (k > ptr[r] && col[k] <= col[k - 1])
        throw InvalidInput(fmt::format(
            "{}: {}: column indices not strictly increasing in its row {}: col_idx[{}] = {} after "
            "{} (indices must be sorted and unique)",
            format, who, r, col_pos + k, col[k], col[k - 1]));
    }
  }
}

/// Name for messages: "matrix 7".
inline std::string matrix_name(std::int64_t i) {
  return fmt::format("matrix {}", i);
}

}  // namespace spx::detail
