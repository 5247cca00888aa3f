// Batched COO SpMV, one thread block per matrix (Anzt et al. 2017, §3.3).
// Each warp takes an equal contiguous share of its matrix's entries in tiles
// of 32 (coalesced reads), sums runs of equal rows with a warp segmented
// reduction, and adds each run's sum once: into row accumulators in shared
// memory (next to the staged x) when both fit, else atomically into y after
// the block has scaled y by beta. Entries may be in any order (unsorted runs
// are just shorter); duplicates are summed.
#include "core/instantiate.hpp"
#include "cuda/batch_common.cuh"

namespace spx::cuda {
namespace batch {
namespace {

template <class T, class I, class X, class Acc>
__device__ void coo_share(const I* __restrict__ row, const I* __restrict__ col,
                          const T* __restrict__ val, X x, std::int64_t nnz, Acc acc) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  const std::int64_t begin = detail::chunk_begin(warp, nnz, warps);
  const std::int64_t end = detail::chunk_begin(warp + 1, nnz, warps);
  // The trip count is the same for all lanes of the warp.
  for (std::int64_t base = begin; base < end; base += 32) {
    const std::int64_t k = base + lane;
    const bool valid = k < end;
    std::int64_t r = -1;
    T v = 0;
    if (valid) {
      r = row[k];
      v = val[k] * x[col[k]];
    }
    bool head = false;
    const T sum = run_sum_at_head(r, v, &head);
    if (valid && head) acc.add(r, sum);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    coo_segmented_kernel(const std::int64_t* __restrict__ row_off,
                         const std::int64_t* __restrict__ col_off,
                         const std::int64_t* __restrict__ val_off, const I* __restrict__ row_idx,
                         const I* __restrict__ col_idx, const T* __restrict__ values,
                         const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                         std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(row_off, col_off, val_off, b);
  if (s.m == 0) return;
  const I* row = row_idx + s.val0;
  const I* col = col_idx + s.val0;
  const T* val = values + s.val0;
  T* yb = y + s.row0;
  if (s.n + s.m <= stage) {
    // Phase 1: stage x and zero the row accumulators (shared memory).
    T* xs = shared_buffer<T>();
    T* acc = xs + s.n;
    stage_x(xs, x + s.col0, s.n);
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      acc[r] = T(0);
    __syncthreads();
    // Phase 2: run sums of each warp's share into the accumulators.
    coo_share(row, col, val, SharedX<T>{xs}, s.slots, SharedAcc<T>{acc});
    __syncthreads();
    // Phase 3: y = alpha*acc + beta*y.
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      store_axpby(yb, r, alpha, acc[r], beta);
  } else {
    // Phase 1: y = beta*y (rows without entries keep it).
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      store_scaled(yb, r, beta);
    __syncthreads();
    // Phase 2: alpha times the run sums, atomically into y.
    coo_share(row, col, val, GlobalX<T>{x + s.col0}, s.slots, GlobalAcc<T>{yb, alpha});
  }
}

}  // namespace
}  // namespace batch

template <Value T, Index I>
void batch_coo_segmented(T alpha, const BatchCoo<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_coo_segmented");
  const auto& geometry = A.structure_cache().template get<batch::CooGeometry>([&] {
    const auto rows = A.host_row_offsets();
    const auto cols = A.host_col_offsets();
    std::int64_t need = 0;
    for (std::int64_t i = 0; i < A.count(); ++i)
      need = std::max(need, rows[i + 1] - rows[i] + cols[i + 1] - cols[i]);
    return batch::CooGeometry{need};
  });
  // About four entries per thread for the largest matrix.
  const int threads = batch::threads_for((A.max_nnz() + 3) / 4);
  const std::int64_t stage = batch::stage_entries<T>(geometry.need);
  batch::launch_blocks<T>(batch::coo_segmented_kernel<T, I>, A.count(), threads, stage, ctx.stream,
                          "batch coo_segmented_kernel", A.row_offsets().data(),
                          A.col_offsets().data(), A.value_offsets().data(), A.row_idx().data(),
                          A.col_idx().data(), A.values().data(), x, alpha, beta, y);
}

#define SPX_INST(T, I) \
  template void batch_coo_segmented(T, const BatchCoo<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
