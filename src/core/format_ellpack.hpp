// Validation shared by the ELLPACK family (ELL, SELL, HLL): each stores groups
// of rows (the whole matrix, a slice, a hack) as a column-major block of
// `slots` rows × `width` entries, slot r's entry j at offset + j*slots + r.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

/// One column-major group of an ELLPACK-family format.
struct EllGroup {
  std::int64_t offset;  ///< first entry in col_idx/values
  std::int64_t slots;   ///< rows stored (the stride between columns)
  std::int64_t rows;    ///< slots holding matrix rows (the others are empty)
  std::int64_t width;   ///< entries per slot
  std::int64_t row0;    ///< index (in row_len) of the group's first row
};

/// Checks one group: row lengths in [0, width]; every column index in
/// [0, cols); true entries strictly increasing by column; padding values
/// zero. Returns the number of true entries. Messages name the format, the
/// array, the position, the row and the value.
template <class T, class I>
std::int64_t check_ell_group(std::string_view format, const EllGroup& g, const std::vector<I>& col,
                             const std::vector<T>& val, const std::vector<I>& row_len,
                             std::int64_t cols) {
  std::int64_t nnz = 0;
  for (std::int64_t r = 0; r < g.slots; ++r) {
    const std::int64_t row = g.row0 + r;
    std::int64_t len = 0;
    if (r < g.rows) {
      len = row_len[row];
      if (len < 0 || len > g.width)
        throw InvalidInput(
            fmt::format("{}: row_len[{}] = {} is out of range [0, {}] (the width "
                        "of its group of rows)",
                        format, row, len, g.width));
      nnz += len;
    }
    for (std::int64_t j = 0; j < g.width; ++j) {
      const std::int64_t k = g.offset + j * g.slots + r;
      const std::int64_t c = col[k];
      if (c < 0 || c >= cols)
        throw InvalidInput(fmt::format(
            "{}: col_idx[{}] = {} (row {}, entry {}{}) is out of range [0, {}); padding entries "
            "must also hold a valid column index",
            format, k, c, row, j, j < len ? "" : ", padding", cols));
      if (j < len && j > 0 && c <= col[k - g.slots])
        throw InvalidInput(fmt::format(
            "{}: column indices not strictly increasing in row {}: col_idx[{}] = {} after {}",
            format, row, k, c, col[k - g.slots]));
      if (j >= len && val[k] != T{0})
        throw InvalidInput(
            fmt::format("{}: values[{}] = {} is a padding entry (row {}, entry {} >= row length "
                        "{}) and must be "
                        "zero",
                        format, k, val[k], row, j, len));
    }
  }
  return nnz;
}

/// Checks that `perm` is a permutation of [0, n); names the first repeat.
template <class I>
void check_permutation(std::string_view format, const std::vector<I>& perm, std::int64_t n) {
  if (static_cast<std::int64_t>(perm.size()) != n)
    throw InvalidInput(
        fmt::format("{}: perm has {} entries, expected rows = {}", format, perm.size(), n));
  std::vector<char> seen(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t p = perm[i];
    if (p < 0 || p >= n)
      throw InvalidInput(fmt::format("{}: perm[{}] = {} is out of range [0, {})", format, i, p, n));
    if (seen[p])
      throw InvalidInput(fmt::format(
          "{}: perm[{}] = {} repeats an earlier entry (perm must be a permutation of the rows)",
          format, i, p));
    seen[p] = 1;
  }
}

}  // namespace spx::detail
