// The statistics of a CSR whose columns a backend measured where they live
// (analyze and the advisor, for a matrix in device memory).
#pragma once

#include <cstdint>

#include "spx/analysis.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// MatrixStats from the row pointers (on the host, `rows` + 1 of them) and
/// the column counts a backend measured: the same numbers `analyze` gives
/// on a host copy.
template <Index I>
MatrixStats stats_from_counts(const I* ptr, std::int64_t rows, std::int64_t cols,
                              const ColumnCounts& c);

}  // namespace spx::detail
