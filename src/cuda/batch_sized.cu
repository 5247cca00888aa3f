// Batched CSR SpMV with work sized to each matrix: the paper's future work
// (Anzt et al. 2017, §5: "determining the resources allocated to the distinct
// problems based on the matrix characteristics").
//
// One launch of fixed 256-thread blocks runs a per-batch schedule computed
// once and kept in the batch's structure cache (plan_sized_blocks in
// src/core/batch_schedule.cpp):
//   - small matrices are packed, several per block, until the block has about
//     `target_work` nonzeros + rows; their x (one contiguous range of the
//     concatenated x) is staged in shared memory;
//   - a large matrix is split over several blocks of about `target_work`
//     each, reading x through the cache;
//   - each block's vector length (threads per row) is the next power of two
//     of its own rows' mean length, as in CSR-smart.
// A block finds the matrix of each of its rows by binary search in a small
// table of its matrices' offsets held in shared memory.
#include "core/instantiate.hpp"
#include "cuda/batch_common.cuh"
#include "cuda/primitives.cuh"

namespace spx::cuda {
namespace batch {
namespace {

constexpr int kSizedThreads = 256;
/// Most matrices one packed block holds (its shared offset table).
constexpr int kSizedMaxMatrices = 64;
/// Work (nonzeros + rows) per block: 32 per thread.
constexpr std::int64_t kSizedTargetWork = 32 * kSizedThreads;
/// Most shared memory a packed block stages x in. Kept well under the 48 KB a
/// block may use so that 8 blocks (2048 threads) still fit one Hopper SM.
constexpr std::int64_t kSizedStageBytes = 24 * 1024;

/// The matrix (index into the block's table) that holds global row r: the
/// largest j < nmat with s_row[j] <= r (matrices without rows are skipped).
__device__ __forceinline__ int find_matrix(const std::int64_t* s_row, int nmat, std::int64_t r) {
  return static_cast<int>(upper_bound_index(s_row, 0, nmat, r)) - 1;
}

/// The block's rows, a vector of `vlen` threads per row, rounds of
/// blockDim/vlen rows (the same trip count for the whole block, so every lane
/// reaches the shuffles). kStaged: x of the block's matrices is in `xs`,
/// starting with the first matrix's x.
template <class T, class I, bool kStaged>
__device__ void sized_rows(CsrView<T, I> A, const detail::SizedTask& t, const std::int64_t* s_row,
                           const std::int64_t* s_col, const std::int64_t* s_val, int nmat,
                           const T* __restrict__ x, const T* xs, T alpha, T beta,
                           T* __restrict__ y) {
  const int vlen = t.vector_length;
  const int lane = threadIdx.x & (vlen - 1);
  const int group = threadIdx.x / vlen;
  const int groups = blockDim.x / vlen;
  for (std::int64_t base = t.row_begin; base < t.row_end; base += groups) {
    const std::int64_t r = base + group;
    T sum = 0;
    if (r < t.row_end) {
      // Row r is local row lr of matrix b.
      const int j = find_matrix(s_row, nmat, r);
      const std::int64_t b = t.first + j;
      const std::int64_t lr = r - s_row[j];
      const I* ptr = A.ptr(b, s_row[j]);
      const I* col = A.cols(s_val[j]);
      const T* val = A.values + s_val[j];
      const std::int64_t end = ptr[lr + 1];
      if constexpr (kStaged) {
        const T* xb = xs + (s_col[j] - s_col[0]);
        for (std::int64_t k = ptr[lr] + lane; k < end; k += vlen)
          sum += val[k] * xb[col[k]];
      } else {
        const T* xb = x + s_col[j];
        for (std::int64_t k = ptr[lr] + lane; k < end; k += vlen)
          sum += val[k] * __ldg(xb + col[k]);
      }
    }
    sum = group_sum(sum, vlen);
    if (r < t.row_end && lane == 0) store_axpby(y, r, alpha, sum, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kSizedThreads)
    csr_sized_kernel(CsrView<T, I> A, const detail::SizedTask* __restrict__ tasks,
                     const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  __shared__ std::int64_t s_row[kSizedMaxMatrices + 1];
  __shared__ std::int64_t s_col[kSizedMaxMatrices + 1];
  __shared__ std::int64_t s_val[kSizedMaxMatrices + 1];
  const detail::SizedTask t = tasks[blockIdx.x];
  const int nmat = static_cast<int>(t.last - t.first);
  // Phase 1: the offsets of the block's matrices into shared memory.
  for (int i = threadIdx.x; i <= nmat; i += blockDim.x) {
    s_row[i] = A.row_off[t.first + i];
    s_col[i] = A.col_off[t.first + i];
    s_val[i] = A.val_off[t.first + i];
  }
  // Phase 2 (packed blocks): stage x of all its matrices, one contiguous range.
  T* xs = shared_buffer<T>();
  if (t.staged) {
    const std::int64_t c0 = A.col_off[t.first];
    stage_x(xs, x + c0, A.col_off[t.last] - c0);
  }
  __syncthreads();
  // Phase 3: the rows.
  if (t.staged) {
    sized_rows<T, I, true>(A, t, s_row, s_col, s_val, nmat, x, xs, alpha, beta, y);
  } else {
    sized_rows<T, I, false>(A, t, s_row, s_col, s_val, nmat, x, xs, alpha, beta, y);
  }
}

template <class T, class I>
const SizedDevicePlan& sized_plan(const BatchCsr<T, I>& A, std::int64_t capacity) {
  return A.structure_cache().template get<SizedDevicePlan>(capacity, [&] {
    // Row pointers of the matrices to split, fetched from the batch's
    // space on demand.
    const auto rows = A.host_row_offsets();
    const auto row_ptr_of = [&](std::int64_t i) {
      const std::int64_t m = rows[i + 1] - rows[i];
      const std::int64_t pos = A.is_uniform() ? 0 : rows[i] + i;
      std::vector<I> p(static_cast<std::size_t>(m) + 1);
      spx::detail::copy_bytes(p.data(), Space::Host, A.row_ptr().data() + pos, A.space(),
                              p.size() * sizeof(I));
      return std::vector<std::int64_t>(p.begin(), p.end());
    };
    detail::SizedParams params;
    params.target_work = kSizedTargetWork;
    params.max_matrices = kSizedMaxMatrices;
    params.stage_capacity = capacity;
    const detail::SizedPlan plan = detail::plan_sized_blocks(
        rows, A.host_col_offsets(), A.host_nnz_offsets(), row_ptr_of, params);
    for (const auto& t : plan.tasks)
      if (t.last - t.first > kSizedMaxMatrices || t.last <= t.first || t.row_end <= t.row_begin)
        throw InternalError("batch_csr_sized: malformed task in the schedule");
    return SizedDevicePlan{
        Array<detail::SizedTask>(std::span<const detail::SizedTask>(plan.tasks), A.space()),
        static_cast<std::int64_t>(plan.tasks.size()), plan.stage_entries};
  });
}

}  // namespace
}  // namespace batch

template <Value T, Index I>
void batch_csr_sized(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx) {
  const std::int64_t capacity =
      std::min<std::int64_t>(batch::kSizedStageBytes, shared_bytes_per_block()) /
      static_cast<std::int64_t>(sizeof(T));
  const batch::SizedDevicePlan& plan = batch::sized_plan(A, capacity);
  if (plan.blocks == 0) return;  // no matrix has rows (the dispatcher returns before this)
  batch::check_grid(plan.blocks, "batch_csr_sized");
  batch::csr_sized_kernel<T, I>
      <<<static_cast<unsigned>(plan.blocks), batch::kSizedThreads, plan.stage_entries * sizeof(T),
         ctx.stream>>>(batch::csr_view(A), plan.tasks.data(), x, alpha, beta, y);
  check_launch("batch csr_sized_kernel");
}

#define SPX_INST(T, I) \
  template void batch_csr_sized(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
