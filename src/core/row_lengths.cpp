// The row lengths of a CSR in one pass over its row pointers (row_lengths.hpp).
#include "core/row_lengths.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include <omp.h>

#include "common/first_error.hpp"

namespace spx::detail {
namespace {

/// Lengths below this are counted in an array per thread; each longer row
/// (at most nnz / kShortLengths of them) keeps its length, sorted at the end.
constexpr std::int64_t kShortLengths = 4096;
/// Rows per block of the pass, about: enough to amortize the scheduling.
constexpr std::int64_t kBlockRows = 16384;

/// One thread's share of the pass (a cache line apart from the others').
struct alignas(64) Tally {
  std::vector<std::int64_t> short_rows;    // short_rows[k]: rows of length k < kShortLengths
  std::vector<std::int64_t> long_lengths;  // the length of each longer row
  std::vector<std::int64_t> run_widths;    // scratch: the longest row of each run of a block
  std::int64_t slice_widths = 0;           // saturating, as RowLengthSummary'
  std::int64_t hack_entries = 0;
};

/// Rows per block of the pass: a multiple of the slice and the hack size, so
/// that no slice or hack straddles two blocks (all rows where that multiple
/// is as large).
std::int64_t block_rows(const RowGroups& g, std::int64_t rows) {
  const std::int64_t slice = std::max<std::int64_t>(g.slice, 1);
  const std::int64_t hack = std::max<std::int64_t>(g.hack, 1);
  const std::int64_t unit = saturating_mul(slice / std::gcd(slice, hack), hack);
  if (unit >= rows) return std::max<std::int64_t>(rows, 1);
  return unit * std::max<std::int64_t>(1, kBlockRows / unit);
}

/// Rows per run of a block, whose longest row the pass keeps: a slice and a
/// hack are each a whole number of runs (one run per block where neither is
/// asked).
std::int64_t run_rows(const RowGroups& g, std::int64_t block) {
  const std::int64_t run = std::gcd(g.slice, g.hack);
  return run > 0 ? run : block;
}

/// The largest of widths [first, last) (a group's runs).
std::int64_t widest(const std::vector<std::int64_t>& widths, std::int64_t first,
                    std::int64_t last) {
  return *std::max_element(widths.begin() + first, widths.begin() + last);
}

/// Adds rows [r0, r1) to t: r0 is a multiple of the slice and the hack
/// size, and r1 one too or the last row, so the block holds whole slices and
/// hacks.
template <Index I>
void tally_block(const I* ptr, std::int64_t r0, std::int64_t r1, std::int64_t run,
                 const RowGroups& g, Tally& t) {
  // The lengths, counted, and the longest row of each run, read once.
  const std::int64_t runs = (r1 - r0 + run - 1) / run;
  t.run_widths.resize(static_cast<std::size_t>(runs));
  for (std::int64_t j = 0; j < runs; ++j) {
    std::int64_t w = 0;
    for (std::int64_t r = r0 + j * run; r < std::min(r1, r0 + (j + 1) * run); ++r) {
      const std::int64_t len = std::int64_t{ptr[r + 1]} - std::int64_t{ptr[r]};
      // Unsigned: a negative length (the row pointers of a view the caller
      // vouched for, wrongly) is kept as a long one, not an index.
      if (static_cast<std::uint64_t>(len) < t.short_rows.size())
        ++t.short_rows[static_cast<std::size_t>(len)];
      else
        t.long_lengths.push_back(len);
      w = std::max(w, len);
    }
    t.run_widths[static_cast<std::size_t>(j)] = w;
  }
  // The slices and the hacks from their runs.
  std::int64_t slice_widths = 0, hack_entries = 0;
  if (g.slice > 0)
    for (std::int64_t j = 0, per_slice = g.slice / run; j < runs; j += per_slice) {
      const std::int64_t w = widest(t.run_widths, j, std::min(runs, j + per_slice));
      slice_widths = saturating_add(slice_widths, (w + g.lanes - 1) / g.lanes * g.lanes);
    }
  if (g.hack > 0)
    for (std::int64_t j = 0, per_hack = g.hack / run; j < runs; j += per_hack) {
      const std::int64_t first = r0 + j * run, last = std::min(r1, first + g.hack);
      const std::int64_t w = widest(t.run_widths, j, std::min(runs, j + per_hack));
      hack_entries = saturating_add(hack_entries, saturating_mul(last - first, w));
    }
  t.slice_widths = saturating_add(t.slice_widths, slice_widths);
  t.hack_entries = saturating_add(t.hack_entries, hack_entries);
}

/// The threads' tallies (at least one) as one RowLengthSummary: integer sums and
/// a sort, the same result in any order.
RowLengthSummary merge(std::vector<Tally>& tallies, std::int64_t rows, std::int64_t nnz) {
  RowLengthSummary out;
  out.rows = rows;
  out.nnz = nnz;
  std::vector<std::int64_t> short_rows(tallies.front().short_rows.size(), 0);
  std::vector<std::int64_t> long_lengths;
  for (Tally& t : tallies) {
    for (std::size_t k = 0; k < t.short_rows.size(); ++k)
      short_rows[k] += t.short_rows[k];
    long_lengths.insert(long_lengths.end(), t.long_lengths.begin(), t.long_lengths.end());
    out.slice_widths = saturating_add(out.slice_widths, t.slice_widths);
    out.hack_entries = saturating_add(out.hack_entries, t.hack_entries);
  }
  for (std::size_t k = 0; k < short_rows.size(); ++k)
    if (short_rows[k] > 0) out.bins.push_back({static_cast<std::int64_t>(k), short_rows[k]});
  std::sort(long_lengths.begin(), long_lengths.end());
  for (const std::int64_t len : long_lengths)
    if (!out.bins.empty() && out.bins.back().length == len)
      ++out.bins.back().rows;
    else
      out.bins.push_back({len, 1});
  return out;
}

}  // namespace

double RowLengthSummary::squared_deviation() const {
  if (rows == 0) return 0.0;
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  double sum = 0;
  for (const Bin& b : bins) {
    const double d = static_cast<double>(b.length) - mean;
    sum += static_cast<double>(b.rows) * (d * d);
  }
  return sum;
}

std::int64_t RowLengthSummary::entries_beyond(std::int64_t K) const {
  std::int64_t beyond = 0;
  for (const Bin& b : bins)
    if (b.length > K) beyond += b.rows * (b.length - K);
  return beyond;
}

std::int64_t RowLengthSummary::bell_garland_width() const {
  // Walk K down the distinct lengths, counting the rows of length >= K; the
  // rows reaching K change only at a length, so the first K that a third of
  // the rows reach is one.
  std::int64_t at_least = 0;
  for (auto b = bins.rbegin(); b != bins.rend() && b->length > 0; ++b) {
    at_least += b->rows;
    if (3 * at_least >= rows) return b->length;
  }
  return 0;
}

template <Index I>
RowLengthSummary row_lengths(const I* ptr, std::int64_t rows, const RowGroups& groups) {
  const std::int64_t nnz = rows > 0 ? std::int64_t{ptr[rows]} : 0;
  const std::int64_t block = block_rows(groups, rows);
  const std::int64_t blocks = (rows + block - 1) / block, run = run_rows(groups, block);
  const int team = static_cast<int>(std::clamp<std::int64_t>(blocks, 1, omp_get_max_threads()));
  // No length exceeds nnz: a small matrix needs few counters (at least one,
  // whatever a wrongly trusted view's last row pointer says).
  const auto short_size =
      static_cast<std::size_t>(std::clamp<std::int64_t>(nnz + 1, 1, kShortLengths));
  std::vector<Tally> tallies(static_cast<std::size_t>(team));
  FirstError err;
#pragma omp parallel num_threads(team) if (team > 1)
  {
    Tally& t = tallies[static_cast<std::size_t>(omp_get_thread_num())];
    err.run([&] { t.short_rows.assign(short_size, 0); });
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < blocks; ++b)
      err.run(
          [&] { tally_block(ptr, b * block, std::min(rows, (b + 1) * block), run, groups, t); });
  }
  err.rethrow();
  return merge(tallies, rows, nnz);
}

template RowLengthSummary row_lengths(const std::int32_t*, std::int64_t, const RowGroups&);
template RowLengthSummary row_lengths(const std::int64_t*, std::int64_t, const RowGroups&);

}  // namespace spx::detail
