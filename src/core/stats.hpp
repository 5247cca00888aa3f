// The statistics of a CSR whose columns a backend measured where they live
// (analyze and the advisor, for a matrix in device memory).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/row_lengths.hpp"
#include "spx/analysis.hpp"
#include "spx/core/error.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

/// Below this many entries the statistics of a device CSR are taken on a
/// host copy (analyze, advise): the device's launches and read-backs then
/// cost more than the copy and the host's passes (H100, session 21:
/// 0.37–0.46 ms against 0.24–0.40 ms for the 8 real matrices of 306–1544
/// entries; 1.1–9× faster on the device from 3537 entries on).
inline constexpr std::int64_t kDeviceStatsMinEntries = 2048;

/// The column reader of the backend whose memory holds A (not the host's);
/// InvalidInput, naming `who`, where this build has none.
template <Value T, Index I>
const ColumnReader<T, I>& column_reader_of(const Csr<T, I>& A, std::string_view who) {
  const ColumnReader<T, I>* r = Registry<T, I>::instance().column_reader(Backend::Cuda);
  if (r == nullptr)
    throw InvalidInput(std::string(who) + ": the matrix is in " +
                       std::string(to_string(A.space())) +
                       " memory, which no backend of this build measures");
  return *r;
}

/// MatrixStats from the row lengths' summary and the column counts a
/// backend measured: the same numbers `analyze` gives on a host copy.
MatrixStats stats_from_counts(const RowLengthSummary& lengths, std::int64_t cols,
                              const ColumnCounts& c);

/// The same from the row pointers (on the host, `rows` + 1 of them).
template <Index I>
MatrixStats stats_from_counts(const I* ptr, std::int64_t rows, std::int64_t cols,
                              const ColumnCounts& c);

/// analyze of a host CSR whose row lengths are summarized already (the
/// advisor's one pass over the row pointers, which also sizes the slices
/// and hacks of the padded formats).
template <Value T, Index I>
MatrixStats analyze_host(const Csr<T, I>& A, const RowLengthSummary& lengths);

}  // namespace spx::detail
