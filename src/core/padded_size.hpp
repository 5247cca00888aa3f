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

#include "spx/convert.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

/// a × b (non-negative sizes); Unsupported "size overflow" past int64.
inline std::int64_t padded_mul(std::string_view format, std::string_view what, std::int64_t a,
                               std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw Unsupported(
        fmt::format("{}: size overflow: {} = {} x {} exceeds 64 bits", format, what, a, b));
  return r;
}

/// a + b (non-negative sizes); Unsupported "size overflow" past int64.
inline std::int64_t padded_add(std::string_view format, std::string_view what, std::int64_t a,
                               std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw Unsupported(
        fmt::format("{}: size overflow: {} = {} + {} exceeds 64 bits", format, what, a, b));
  return r;
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

/// The largest storage a padded conversion may produce:
/// max(max_bytes_floor, max_expansion × CSR bytes).
inline double padded_budget(std::size_t csr_bytes, const ConvertOptions& o) {
  return std::max(static_cast<double>(o.max_bytes_floor),
                  o.max_expansion * static_cast<double>(csr_bytes));
}

/// Throws Unsupported when a format of `entries` stored entries and `bytes`
/// bytes exceeds the budget; `what` describes the padded shape.
inline void require_budget(std::string_view format, std::string_view what, std::int64_t entries,
                           double bytes, std::size_t csr_bytes, const ConvertOptions& o) {
  const double budget = padded_budget(csr_bytes, o);
  if (bytes > budget)
    throw Unsupported(fmt::format(
        "{}: the padded storage ({}: {} stored entries) would take {:.0f} bytes, more than the "
        "budget of {:.0f} bytes = max(max_bytes_floor {}, max_expansion {} x CSR {} bytes); "
        "raise ConvertOptions::max_expansion or use a format with less padding",
        format, what, entries, bytes, budget, o.max_bytes_floor, o.max_expansion, csr_bytes));
}

/// Bytes of `entries` (value, index) pairs plus `index_entries` more indices.
template <Value T, Index I>
double padded_bytes(std::int64_t entries, std::int64_t index_entries) {
  return static_cast<double>(entries) * static_cast<double>(sizeof(T) + sizeof(I)) +
         static_cast<double>(index_entries) * static_cast<double>(sizeof(I));
}

/// Bell and Garland's HYB width: the largest K such that at least a third of
/// the rows have K or more entries (0 for a matrix without rows). `row_ptr`
/// has rows+1 entries. O(rows).
template <Index I>
std::int64_t bell_garland_width(const I* row_ptr, std::int64_t rows);

}  // namespace spx::detail
