// Size arithmetic of the padded formats (ELL, SELL, HLL, HYB): overflow-
// checked products and sums, the "fits the index type" check, and the memory
// budget. Every check runs before anything is allocated, so a conversion that
// would be too large refuses with Unsupported and the size it would have.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

/// a × b (non-negative sizes); Unsupported "size overflow" past int64.
/// The message is formatted only on overflow: these run once per slice or
/// hack, and formatting the unused prefix took 15 of the 20 ms of the
/// advisor's HLL loop on a matrix of 9M rows (281K hacks).
inline std::int64_t padded_mul(std::string_view format, std::string_view what, std::int64_t a,
                               std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return checked_arithmetic<Unsupported>('*', a, b, fmt::format("{}: ", format), what);
}

/// a + b (non-negative sizes); Unsupported "size overflow" past int64
/// (formatted only then, as padded_mul).
inline std::int64_t padded_add(std::string_view format, std::string_view what, std::int64_t a,
                               std::int64_t b) {
  std::int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return checked_arithmetic<Unsupported>('+', a, b, fmt::format("{}: ", format), what);
}

/// Throws Unsupported "index overflow" when `n` stored entries cannot be
/// addressed by index type I (the offsets of the padded formats are I).
template <Index I>
void require_index_fits(std::string_view format, std::string_view what, std::int64_t n) {
  if (n > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    throw Unsupported(fmt::format(
        "{}: index overflow: {} = {} entries do not fit the {} index type (max {}); use 64-bit "
        "indices",
        format, what, n, index_name<I>(), std::numeric_limits<I>::max()));
}

/// Throws Unsupported when a padded format of `stored` stored values taking
/// `bytes` bytes exceeds the budget of `o`: max(max_bytes_floor, max_expansion
/// × CSR bytes). `shape` describes the padded shape ("4800 rows x 1201
/// diagonals"); `entries`, when not negative, the entries it would hold.
inline void check_budget(std::string_view format, std::string_view shape, std::int64_t stored,
                         std::int64_t entries, double bytes, std::size_t csr_bytes,
                         const ConvertOptions& o) {
  const double limit = std::max(static_cast<double>(o.max_bytes_floor),
                                o.max_expansion * static_cast<double>(csr_bytes));
  if (bytes <= limit) return;
  throw Unsupported(fmt::format(
      "{}: {} = {} stored values{} would take {:.0f} bytes ({:.1f}x the CSR's {} bytes), above "
      "the limit of {:.0f} bytes = max(ConvertOptions::max_bytes_floor = {}, max_expansion = {} "
      "x CSR bytes); raise the budget or use a format with less padding",
      format, shape, stored, entries < 0 ? "" : fmt::format(" for {} entries", entries), bytes,
      csr_bytes > 0 ? bytes / static_cast<double>(csr_bytes) : 0.0, csr_bytes, limit,
      o.max_bytes_floor, o.max_expansion));
}

/// check_budget for the ELLPACK family, which do not name their entries.
inline void require_budget(std::string_view format, std::string_view what, std::int64_t entries,
                           double bytes, std::size_t csr_bytes, const ConvertOptions& o) {
  check_budget(format, what, entries, -1, bytes, csr_bytes, o);
}

/// Bytes of `entries` (value, index) pairs plus `index_entries` more indices.
template <Value T, Index I>
double padded_bytes(std::int64_t entries, std::int64_t index_entries) {
  return static_cast<double>(entries) * static_cast<double>(sizeof(T) + sizeof(I)) +
         static_cast<double>(index_entries) * static_cast<double>(sizeof(I));
}

/// Bell and Garland's HYB width: the largest K such that at least a third of
/// the rows have K or more entries (0 for a matrix without rows). `row_ptr`
/// has rows+1 entries. O(rows), parallel (RowLengthSummary::bell_garland_width).
template <Index I>
std::int64_t bell_garland_width(const I* row_ptr, std::int64_t rows);

}  // namespace spx::detail
