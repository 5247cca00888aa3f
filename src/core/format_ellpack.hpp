// The layout shared by the ELLPACK family (ELL, SELL, HLL) and its checks:
// each stores groups of rows (the whole matrix, a slice, a hack) as a
// column-major block of `slots` rows × `width` entries, slot r's entry j at
// offset + j*slots + r.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/validate.hpp"
#include "spx/formats/base.hpp"

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

/// The groups of the ELLPACK family: ELL is one group of all rows; hack h of
/// HLL holds rows [h·H, h·H + n), n = min(H, rows − h·H), in n slots; slice s
/// of SELL holds C slots, the first min(C, rows − s·C) of them rows s·C on.
template <class I>
EllGroup hll_group(std::int64_t rows, std::int64_t H, const I* hack_ptr, std::int64_t h) {
  const std::int64_t n = std::min(H, rows - h * H);
  return {hack_ptr[h], n, n, (std::int64_t{hack_ptr[h + 1]} - hack_ptr[h]) / n, h * H};
}
template <class I>
EllGroup sell_group(std::int64_t rows, std::int64_t C, const I* slice_ptr, const I* width,
                    std::int64_t s) {
  return {slice_ptr[s], C, std::min(C, rows - s * C), width[s], s * C};
}

/// The true entries of an ELLPACK-family matrix that its caller vouches for:
/// the sum of row_len.
template <class I>
std::int64_t sum_of_lengths(const Array<I>& row_len) {
  const std::vector<I> len = row_len.to_vector();
  return std::accumulate(len.begin(), len.end(), std::int64_t{0});
}

/// Checks row_len's length and each of the `groups` groups of an
/// ELLPACK-family matrix (group(g) gives group g, see check_ell_group).
/// Returns the number of true entries.
template <class T, class I, class Group>
std::int64_t check_ell_groups(std::string_view format, std::int64_t rows, std::int64_t cols,
                              const Array<I>& col_idx, const Array<T>& values,
                              const Array<I>& row_len, std::int64_t groups, Group&& group) {
  const std::vector<I> len = row_len.to_vector();
  check_length(format, "row_len", static_cast<std::int64_t>(len.size()), rows, "rows");
  const std::vector<I> col = col_idx.to_vector();
  const std::vector<T> val = values.to_vector();
  std::int64_t nnz = 0;
  for (std::int64_t g = 0; g < groups; ++g)
    nnz += check_ell_group<T, I>(format, group(g), col, val, len, cols);
  return nnz;
}

/// SELL's parameters, alike from the constructor and from ConvertOptions.
inline void check_sell_parameters(std::int64_t C, std::int64_t sigma, std::int64_t tpr) {
  check_at_least("SELL", "slice_size C", C, 1);
  check_at_least("SELL", "threads_per_row", tpr, 1);
  if (sigma < 1 || (sigma != 1 && sigma % C != 0))
    throw InvalidInput(fmt::format(
        "SELL: sigma = {} must be 1 or a positive multiple of the slice size C = {}", sigma, C));
}

}  // namespace spx::detail
