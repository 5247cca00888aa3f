// Filling and reading the column-major row groups of the ELLPACK family
// (ELL, SELL slices, HLL hacks, the ELL part of HYB) from and into CSR.
#pragma once

#include <algorithm>
#include <cstdint>

#include "spx/core/types.hpp"

namespace spx::detail {

/// The longest row of a host CSR row pointer (0 when there are no rows).
template <Index I>
std::int64_t longest_row(const I* ptr, std::int64_t rows) {
  std::int64_t longest = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    longest = std::max<std::int64_t>(longest, ptr[r + 1] - ptr[r]);
  return longest;
}

/// Writes slots [0, slots) of one group stored at `col`/`val`, entry j of
/// slot r at j*stride + r, `width` entries per slot. Slot r < rows holds the first
/// min(length, width) entries of CSR row row_of(r) (its length goes to
/// len[r]); the rest of each slot, and every slot r >= rows, is padding: a
/// zero value and the row's last stored column (0 for an empty slot).
template <Value T, Index I, class RowOf>
void fill_ell_group(const I* ptr, const I* csr_col, const T* csr_val, I* col, T* val, I* len,
                    std::int64_t stride, std::int64_t slots, std::int64_t rows, std::int64_t width,
                    RowOf row_of) {
  for (std::int64_t r = 0; r < slots; ++r) {
    std::int64_t n = 0;
    I pad = 0;
    if (r < rows) {
      const std::int64_t src = row_of(r);
      const std::int64_t b = ptr[src];
      n = std::min<std::int64_t>(ptr[src + 1] - b, width);
      for (std::int64_t j = 0; j < n; ++j) {
        col[j * stride + r] = csr_col[b + j];
        val[j * stride + r] = csr_val[b + j];
      }
      if (n > 0) pad = csr_col[b + n - 1];
      len[r] = static_cast<I>(n);
    }
    for (std::int64_t j = n; j < width; ++j) {
      col[j * stride + r] = pad;
      val[j * stride + r] = T{0};
    }
  }
}

/// Copies the true entries of slots [0, rows) of one group (entry j of slot
/// r at j*stride + r) into CSR storage: slot r's entries go to
/// out_col/out_val from position dst_begin(r) on.
template <Value T, Index I, class DstBegin>
void read_ell_group(const I* col, const T* val, const I* len, std::int64_t stride,
                    std::int64_t rows, I* out_col, T* out_val, DstBegin dst_begin) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t d = dst_begin(r);
    for (std::int64_t j = 0; j < len[r]; ++j) {
      out_col[d + j] = col[j * stride + r];
      out_val[d + j] = val[j * stride + r];
    }
  }
}

}  // namespace spx::detail
