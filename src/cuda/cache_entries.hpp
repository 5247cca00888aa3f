// The kinds of entries the CUDA backend keeps in a matrix's StructureCache
// (include/spx/core/cache.hpp): one struct each, declaring its parameters as
// `Key`. A lookup matches the entry's type and key, so entries of different
// kinds never collide. Each entry is built once, on the stream of the first
// call that needs it, which is then synchronized so that calls on other
// streams may use it; the structure of a format never changes, so entries
// stay valid when values are rewritten. (The cuSPARSE baselines' entries:
// src/baselines/cache_entries.hpp.) No fmt here: .cu files include this.
#pragma once

#include <array>
#include <cstdint>

#include "core/batch_schedule.hpp"
#include "spx/core/array.hpp"
#include "spx/core/cache.hpp"
#include "spx/core/types.hpp"

namespace spx::cuda {

// ---- CSR SpMV (csr.cu) --------------------------------------------------------

/// Row-length statistics of a device CSR for the Auto rules (csr_row_stats):
/// computed by one small kernel and a synchronous copy on the default stream.
/// No parameters.
struct CsrRowStats {
  using Key = detail::NoKey;
  std::int64_t rows = 0;
  std::int64_t nnz = 0;
  std::int64_t max_len = 0;
  std::int64_t empty_rows = 0;
  double mean = 0;  ///< nnz / rows
  /// Population standard deviation of the row lengths (the host statistics'
  /// `row_std`, from the exact integer sum of the squared lengths); NaN when
  /// that sum could exceed 64 bits (nnz × longest row ≥ 2^64).
  double stddev = 0;
  /// Mean over rows of (last column - first column), 0 for rows of < 2 entries.
  double mean_spread = 0;
  /// Rows and their nonzeros by length class: class 0 holds the empty rows,
  /// class k in 1..kLengthClasses-2 the rows of 2^(k-1) .. 2^k - 1 entries,
  /// the last class every longer row.
  static constexpr int kLengthClasses = 8;
  std::array<std::int64_t, kLengthClasses> class_rows{};
  std::array<std::int64_t, kLengthClasses> class_nnz{};
};

/// Binned CSR SpMV (csr_binned.cu): rows of at most `short_max` entries take
/// `lanes` lanes each in place; the longer rows are listed, those of at most
/// one warp chunk for a warp each, the longer ones split into warp chunks
/// whose partial sums the last chunk to finish adds up in a fixed order. Key:
/// the lanes per short row (short_max follows from it).
template <Index I>
struct BinnedPlan {
  using Key = int;
  int lanes = 1;
  std::int64_t short_max = 0;
  std::int64_t warp_rows = 0;       ///< rows in (short_max, chunk]
  Array<I> warp_row;                ///< those rows, increasing, device
  std::int64_t split_rows = 0;      ///< rows of more than one chunk
  Array<I> split_row;               ///< those rows, increasing, device
  Array<std::int64_t> split_first;  ///< split_rows + 1: first chunk of each, device
  std::int64_t chunks = 0;          ///< chunks of the split rows in all
  Array<I> chunk_owner;             ///< chunks: index of its row in split_row, device
};

/// Equal chunks of nonzeros: the row holding each chunk's first nonzero.
/// CSR-I (balanced) takes a chunk per warp (the chunk from the GPU's
/// resident warps), nonzero split a chunk of 2048 per block. Key: the chunk.
template <Index I>
struct BalancedPlan {
  using Key = std::int64_t;
  std::int64_t chunk = 0;  ///< nonzeros per chunk, a multiple of 32
  std::int64_t warps = 0;  ///< chunks
  Array<I> warp_row;       ///< chunks + 1 entries (the last: rows), device
};

/// Merge path: the start coordinates (row, nonzero) of every block. Key: path
/// items per block.
template <Index I>
struct MergePlan {
  using Key = std::int64_t;
  std::int64_t blocks = 0;
  Array<I> coords;  ///< 2 * (blocks + 1) entries, device
};

// ---- CSC SpMV and SpMM (csc.cu) ----------------------------------------------

/// The transposition of a compressed pattern: for a CSC, its rows (CSR
/// order). Entry p of inner slice s (p in [ptr[s], ptr[s + 1])) is the source
/// entry perm[p], of outer index idx[p]; idx increases within each slice. No
/// values: the product reads them through perm, so the entry stays valid when
/// the values change in place. No parameters.
template <Index I>
struct TransposedPattern {
  using Key = detail::NoKey;
  Array<I> ptr;   ///< inner + 1 offsets, device
  Array<I> idx;   ///< nnz outer indices, device
  Array<I> perm;  ///< nnz source positions, device
};

/// Equal nonzeros per warp over a compressed pattern's slices: the slice
/// holding the first nonzero of every warp's chunk. `S` says which slices
/// (the columns of a CSC for column scatter, the rows of its transposition),
/// so the two never meet in one cache. Key: nonzeros per warp (the chunk,
/// from the GPU's resident warps).
enum class Slices { Columns, TransposedRows };
template <Index I, Slices S>
struct ChunkStarts {
  using Key = std::int64_t;
  std::int64_t chunk = 0;  ///< nonzeros per warp, a multiple of 32
  std::int64_t warps = 0;
  Array<I> first;  ///< warps entries, device
};

// ---- CSR SpMM (spmm_csr.cu, spmm_panel.cu) ------------------------------------

/// Merge-based SpMM: the first row of every unit and the rows with carry-out
/// units. Key: nonzeros per unit.
template <Index I>
struct MergePartition {
  using Key = std::int64_t;
  std::int64_t units = 0;
  Array<I> part;               ///< units + 1 first rows, in device memory
  std::int64_t long_runs = 0;  ///< rows with more than kShortRun carry-out units
  std::int64_t runs = 0;       ///< rows with any carry-out unit
  Array<I> run_rows;           ///< those rows, in device memory: the long ones first
};

/// Where rows end, one bit per nonzero: bit k % 32 of word k / 32 is set when
/// nonzero k is the last of its row (ceil(nnz / 32) words, device). The
/// merge-based SpMM tests a bit per nonzero instead of comparing positions
/// with row ends. No parameters.
struct RowEndBits {
  using Key = detail::NoKey;
  Array<std::uint32_t> words;
};

/// Row panel rule: the union entries of the panels for R = 2, 4, 8 (on the
/// host for a host matrix). No parameters.
struct UnionTotals {
  using Key = detail::NoKey;
  std::array<std::int64_t, 3> u{};
};

/// Row panels of R consecutive rows (the last one partial) and, for each
/// panel, the sorted distinct columns of its rows (their union), in device
/// memory. Union entry u of panel p holds a column ucol[u] and a mask whose
/// bit r says that row p·R + r has an entry in that column; the row's
/// values are read from A in union order (the row's columns are sorted), so
/// the structure holds no values and stays valid when A's values change in
/// place. Key: R.
template <Index I>
struct RowPanels {
  using Key = int;
  int rows = 0;              ///< R: rows per panel (2, 4 or 8)
  std::int64_t panels = 0;   ///< ceil(m / R)
  std::int64_t total = 0;    ///< union entries over all panels (≤ nnz)
  Array<I> ptr;              ///< panels + 1 offsets into col and mask
  Array<I> col;              ///< total columns, sorted within each panel
  Array<std::uint8_t> mask;  ///< total row masks (bit r: row p·R + r)
};

// ---- batched SpMV (batch_csr.cu, batch_sized.cu, batch_coo.cu) ----------------

namespace batch {

/// CSR smart: threads per block, enough for the matrix needing the most (rows
/// x vector length), at most kMaxThreads. No parameters.
struct SmartGeometry {
  using Key = detail::NoKey;
  int threads = 32;
};

/// CSR balanced: the CSR-I starting rows of every warp of every matrix, on
/// the batch's device, and the most shared memory entries a matrix needs (x
/// plus one accumulator per row). Key: warps per matrix.
template <Index I>
struct BalancedPlan {
  using Key = int;
  Array<I> starts;
  std::int64_t need = 0;
};

/// CSR sized blocks: the schedule of tasks on the batch's device. Key: stage
/// capacity in entries.
struct SizedDevicePlan {
  using Key = std::int64_t;
  Array<detail::SizedTask> tasks;
  std::int64_t blocks = 0;
  std::int64_t stage_entries = 0;
};

/// COO segmented: the most shared memory entries a matrix needs (x plus one
/// accumulator per row). No parameters.
struct CooGeometry {
  using Key = detail::NoKey;
  std::int64_t need = 0;
};

}  // namespace batch

}  // namespace spx::cuda
