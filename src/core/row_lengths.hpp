// The row lengths of a CSR, summarized in one parallel pass over its row
// pointers: what MatrixStats (rows, longest, shortest, empty rows, the
// deviation) and the advisor's footprints of the formats padded by row
// length (ELL, SELL, HLL, HYB, JAD) read from the row pointers alone. A
// device CSR's advice copies only its row pointers to the host, and this
// pass is most of the host's share of it: one read of the row pointers, on
// every thread, instead of a pass per number.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "spx/core/types.hpp"

namespace spx::detail {

/// A sum of sizes that would pass int64 stops here instead (saturating_add).
inline constexpr std::int64_t kSaturated = std::numeric_limits<std::int64_t>::max();

/// a + b for sizes a, b ≥ 0, or kSaturated where that would overflow. It is
/// min(a + b, kSaturated), so partial sums may be added in any order.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kSaturated : r;
}

/// a × b for sizes a, b ≥ 0, or kSaturated where that would overflow.
inline std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

/// Groups of consecutive rows that a padded format pads to their longest
/// row: SELL's slices (with σ = 1, rows in place) and HLL's hacks. 0: not
/// asked (analyze asks for neither).
struct RowGroups {
  std::int64_t slice = 0;  ///< SELL's C
  std::int64_t lanes = 1;  ///< SELL's threads_per_row: widths round up to a multiple of it
  std::int64_t hack = 0;   ///< HLL's H
};

struct RowLengthSummary {
  /// `rows` rows of `length` entries.
  struct Bin {
    std::int64_t length = 0, rows = 0;
  };
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  /// The distinct row lengths, ascending, with their rows (none without rows).
  std::vector<Bin> bins;
  /// Σ over the slices of RowGroups::slice rows of the slice's longest row
  /// rounded up to a multiple of RowGroups::lanes; kSaturated past int64
  /// (0 when not asked).
  std::int64_t slice_widths = 0;
  /// Σ over the hacks of RowGroups::hack rows of the hack's rows × its
  /// longest row; kSaturated past int64 (0 when not asked).
  std::int64_t hack_entries = 0;

  std::int64_t longest() const { return bins.empty() ? 0 : bins.back().length; }
  std::int64_t shortest() const { return bins.empty() ? 0 : bins.front().length; }
  std::int64_t empty_rows() const {
    return !bins.empty() && bins.front().length == 0 ? bins.front().rows : 0;
  }
  /// Σ over the rows of (length − mean)², mean = nnz / rows, summed per
  /// distinct length in ascending order: the same number whatever the
  /// number of threads (and closer to the exact sum than a sum per row).
  double squared_deviation() const;
  /// The entries past the first K of each row (HYB's COO part for width K).
  std::int64_t entries_beyond(std::int64_t K) const;
  /// Bell and Garland's HYB width: the largest K such that at least a third
  /// of the rows have K or more entries (0 without rows).
  std::int64_t bell_garland_width() const;
};

/// The row lengths of the `rows` rows whose `rows` + 1 pointers (on the host)
/// are `ptr`, with the padded sizes of `groups`. O(rows) time, parallel;
/// O(threads × 4 Ki + rows longer than 4 Ki) memory.
template <Index I>
RowLengthSummary row_lengths(const I* ptr, std::int64_t rows, const RowGroups& groups = {});

}  // namespace spx::detail
