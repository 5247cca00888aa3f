// Host-side planning for the CUDA batch kernels, kept here (compiled in every
// build) so that the CPU test suite can check it: the per-matrix vector
// length of CSR-smart, CSR-I's starting rows, and the per-batch schedule of
// the sized-blocks kernel (several small matrices per block, several blocks
// per large matrix).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "spx/core/types.hpp"

namespace spx::detail {

/// Threads per row of CSR-smart: the smallest power of two at least the mean
/// row length (nonzeros / rows, rounded up), clamped to [1, 32].
constexpr int vector_length(std::int64_t nnz, std::int64_t rows) {
  const std::int64_t mean = rows > 0 ? (nnz + rows - 1) / rows : 0;
  int v = 1;
  while (v < mean && v < 32)
    v <<= 1;
  return v;
}

/// First nonzero of share `part` when `nnz` nonzeros are cut into `parts`
/// near-equal contiguous shares (share p is [chunk_begin(p), chunk_begin(p+1));
/// chunk_begin(parts) = nnz). Overflow-free for any nnz < 2^63.
constexpr std::int64_t chunk_begin(std::int64_t part, std::int64_t nnz, std::int64_t parts) {
  return (nnz / parts) * part + ((nnz % parts) * part) / parts;
}

/// CSR-I preprocessing: for every matrix i and warp w < warps, the row that
/// holds nonzero chunk_begin(w, nnz(i), warps) (0 when that share is empty).
/// `row_ptr` is the batch's concatenated row pointer (matrix i's at
/// row_off[i] + i), or the shared pattern's when `uniform` (then only one
/// matrix's starts are returned: `warps` entries).
template <Index I>
std::vector<I> balanced_start_rows(std::span<const std::int64_t> row_off,
                                   std::span<const std::int64_t> nnz_off,
                                   std::span<const I> row_ptr, bool uniform, int warps);

/// One thread block's share of a batch in the sized-blocks kernel: the rows
/// [row_begin, row_end) (positions in the concatenated y), which belong to the
/// matrices [first, last).
struct SizedTask {
  std::int64_t row_begin = 0;
  std::int64_t row_end = 0;
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::int32_t vector_length = 1;  ///< threads per row (power of two, 1..32)
  std::int32_t staged = 0;         ///< 1: x of matrices [first, last) is staged in shared memory
};

struct SizedParams {
  /// Work (nonzeros + rows) a task aims for: small matrices are packed until
  /// their work reaches it, larger ones are split into row ranges of about
  /// this much work.
  std::int64_t target_work = 8192;
  /// Most matrices in one packed task (the kernel's shared offset table).
  std::int64_t max_matrices = 64;
  /// Most x entries a task may stage in shared memory.
  std::int64_t stage_capacity = 0;
};

struct SizedPlan {
  std::vector<SizedTask> tasks;
  std::int64_t stage_entries = 0;  ///< most x entries staged by one task
};

/// Plans the sized-blocks kernel over a batch given by its offsets (count+1
/// prefix sums of rows, columns and nonzeros). Packs consecutive matrices
/// whose work and x fit into one task (staged); splits a matrix whose work
/// exceeds the target, or whose x does not fit, into row ranges of about
/// target work each (not staged: x read through the cache). Matrices without
/// rows produce no task. `row_ptr_of(i)` returns matrix i's row pointer
/// (rows(i)+1 entries); it is called only for matrices that are split.
/// Every row of the batch lies in exactly one task, tasks are in row order.
SizedPlan plan_sized_blocks(
    std::span<const std::int64_t> row_off, std::span<const std::int64_t> col_off,
    std::span<const std::int64_t> nnz_off,
    const std::function<std::vector<std::int64_t>(std::int64_t)>& row_ptr_of,
    const SizedParams& params);

}  // namespace spx::detail
