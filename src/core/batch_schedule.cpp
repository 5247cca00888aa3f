// Planning for the CUDA batch kernels (see batch_schedule.hpp).
#include "core/batch_schedule.hpp"

#include <algorithm>

#include "spx/core/error.hpp"

namespace spx::detail {

template <Index I>
std::vector<I> balanced_start_rows(std::span<const std::int64_t> row_off,
                                   std::span<const std::int64_t> nnz_off,
                                   std::span<const I> row_ptr, bool uniform, int warps) {
  if (warps < 1) throw InternalError("balanced_start_rows: warps < 1");
  const auto count = static_cast<std::int64_t>(row_off.size()) - 1;
  const std::int64_t matrices = uniform ? std::min<std::int64_t>(count, 1) : count;
  std::vector<I> starts(static_cast<std::size_t>(matrices * warps), I{0});
  for (std::int64_t i = 0; i < matrices; ++i) {
    const std::int64_t m = row_off[i + 1] - row_off[i];
    const std::int64_t nnz = nnz_off[i + 1] - nnz_off[i];
    const I* ptr = row_ptr.data() + (uniform ? 0 : row_off[i] + i);
    for (int w = 0; w < warps; ++w) {
      const std::int64_t k = chunk_begin(w, nnz, warps);
      if (k >= nnz) continue;  // empty share
      // The row r with ptr[r] <= k < ptr[r+1] (skips empty rows before k).
      const I* it = std::upper_bound(ptr, ptr + m + 1, static_cast<I>(k));
      starts[static_cast<std::size_t>(i * warps + w)] = static_cast<I>(it - ptr - 1);
    }
  }
  return starts;
}

template std::vector<std::int32_t> balanced_start_rows(std::span<const std::int64_t>,
                                                       std::span<const std::int64_t>,
                                                       std::span<const std::int32_t>, bool, int);
template std::vector<std::int64_t> balanced_start_rows(std::span<const std::int64_t>,
                                                       std::span<const std::int64_t>,
                                                       std::span<const std::int64_t>, bool, int);

SizedPlan plan_sized_blocks(
    std::span<const std::int64_t> row_off, std::span<const std::int64_t> col_off,
    std::span<const std::int64_t> nnz_off,
    const std::function<std::vector<std::int64_t>(std::int64_t)>& row_ptr_of,
    const SizedParams& params) {
  const auto count = static_cast<std::int64_t>(row_off.size()) - 1;
  const std::int64_t target = std::max<std::int64_t>(1, params.target_work);
  const std::int64_t max_matrices = std::max<std::int64_t>(1, params.max_matrices);
  const std::int64_t capacity = std::max<std::int64_t>(0, params.stage_capacity);
  SizedPlan plan;

  // The packed task being filled.
  bool open = false;
  SizedTask cur;
  std::int64_t cur_work = 0, cur_nnz = 0, cur_x = 0;
  const auto close = [&] {
    if (!open) return;
    cur.vector_length = vector_length(cur_nnz, cur.row_end - cur.row_begin);
    cur.staged = 1;
    plan.stage_entries = std::max(plan.stage_entries, cur_x);
    plan.tasks.push_back(cur);
    open = false;
  };

  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t m = row_off[i + 1] - row_off[i];
    const std::int64_t n = col_off[i + 1] - col_off[i];
    const std::int64_t nnz = nnz_off[i + 1] - nnz_off[i];
    const std::int64_t work = nnz + m;
    if (m == 0) {
      // No rows, nothing to compute. Its x lies between its neighbours', so a
      // packed task continuing past it stages it too; else close the task.
      if (open && cur_x + n <= capacity && cur.last - cur.first < max_matrices) {
        cur.last = i + 1;
        cur_x += n;
      } else {
        close();
      }
      continue;
    }
    if (work > target || n > capacity) {
      // A large matrix (or one whose x does not fit): row ranges of about
      // `target` work, x read through the cache.
      close();
      const std::vector<std::int64_t> ptr = row_ptr_of(i);
      if (static_cast<std::int64_t>(ptr.size()) != m + 1)
        throw InternalError("plan_sized_blocks: row pointer of the wrong length");
      std::int64_t r = 0;
      while (r < m) {
        const std::int64_t start = r;
        std::int64_t piece = 0;
        while (r < m && (r == start || piece + (ptr[r + 1] - ptr[r]) + 1 <= target)) {
          piece += ptr[r + 1] - ptr[r] + 1;
          ++r;
        }
        SizedTask t;
        t.row_begin = row_off[i] + start;
        t.row_end = row_off[i] + r;
        t.first = i;
        t.last = i + 1;
        t.vector_length = vector_length(ptr[r] - ptr[start], r - start);
        t.staged = 0;
        plan.tasks.push_back(t);
      }
      continue;
    }
    // A small matrix: pack it with its predecessors while work, x and the
    // matrix table allow.
    if (open &&
        (cur_work + work > target || cur_x + n > capacity || cur.last - cur.first >= max_matrices))
      close();
    if (!open) {
      open = true;
      cur = SizedTask{};
      cur.row_begin = row_off[i];
      cur.first = i;
      cur_work = cur_nnz = cur_x = 0;
    }
    cur.last = i + 1;
    cur.row_end = row_off[i + 1];
    cur_work += work;
    cur_nnz += nnz;
    cur_x += n;
  }
  close();
  return plan;
}

}  // namespace spx::detail
