// COO SpMV: nonzeros split evenly over warps, a warp segmented reduction over
// runs of equal row index, and one atomicAdd per run (survey §4.1; batched
// paper §3.3). Runs are maximal stretches of equal consecutive row indices, so
// the kernel is correct for any order and for duplicates; sorted input gives
// one atomic per row and chunk. Not deterministic: rows split between warps
// receive their atomics in any order.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/register.hpp"

namespace spx::cuda {
namespace {

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    coo_segmented_kernel(std::int64_t nnz, const I* __restrict__ row_idx, const I* __restrict__ col,
                         const T* __restrict__ val, const T* __restrict__ x, T alpha,
                         T* __restrict__ y, std::int64_t chunk, std::int64_t warps) {
  const std::int64_t warp = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (warp >= warps) return;  // warp-uniform: the whole warp leaves
  const std::int64_t k_begin = warp * chunk;
  const std::int64_t k_end = min(k_begin + chunk, nnz);

  std::int64_t open_row = -1;  // the previous window's last run, not yet added to y
  T open_sum = 0;
  for (std::int64_t base = k_begin; base < k_end; base += kWarpSize) {
    const std::int64_t k = base + lane;
    const bool valid = k < k_end;
    // Phase 1: each lane's product and row (-1 past the chunk's end).
    const std::int64_t row = valid ? static_cast<std::int64_t>(row_idx[k]) : -1;
    T prod = valid ? val[k] * __ldg(x + col[k]) : T{0};

    // Phase 2: the open run continues in lane 0 if the row matches; else it is
    // complete and added now. (Lane 0 is always valid.)
    if (lane == 0) {
      if (row == open_row) {
        prod += open_sum;
      } else if (open_row >= 0) {
        atomicAdd(y + open_row, alpha * open_sum);
      }
    }

    // Phase 3: sums over the runs of equal row.
    unsigned heads = 0;
    const T total = warp_run_scan(row, prod, lane, heads);

    // Phase 4: every run but the window's last is complete: one atomic each.
    if (row >= 0 && lane != kWarpSize - 1 && run_tail(heads, lane))
      atomicAdd(y + row, alpha * total);

    // Phase 5: the last run stays open (row -1 when it is past the end).
    open_row = __shfl_sync(kFullMask, row, kWarpSize - 1);
    open_sum = __shfl_sync(kFullMask, total, kWarpSize - 1);
  }
  // Phase 6: close the last open run.
  if (lane == 0 && open_row >= 0) atomicAdd(y + open_row, alpha * open_sum);
}

}  // namespace

template <Value T, Index I>
void spmv_coo_segmented(T alpha, const Coo<T, I>& A, const T* x, T beta, T* y,
                        const ExecContext& ctx) {
  // y = beta*y first (zeros without reading y when beta == 0); the kernel adds.
  if (beta != T{1}) detail::cuda_scale(beta, y, A.rows(), ctx);

  // One wave of warps with equal nonzeros each (a multiple of 32).
  const std::int64_t resident = resident_warps(
      reinterpret_cast<const void*>(coo_segmented_kernel<T, I>), kBlock, "coo_segmented_kernel");
  const std::int64_t nnz = A.nnz();
  const std::int64_t per_warp = std::max<std::int64_t>((nnz + resident - 1) / resident, 1);
  const std::int64_t chunk = (per_warp + kWarpSize - 1) / kWarpSize * kWarpSize;
  const std::int64_t warps = (nnz + chunk - 1) / chunk;

  const unsigned grid = grid_size(warps * kWarpSize, kBlock, "coo_segmented_kernel");
  coo_segmented_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      nnz, A.row_idx().data(), A.col_idx().data(), A.values().data(), x, alpha, y, chunk, warps);
  check_launch("coo_segmented_kernel");
}

#define SPX_INST(T, I) \
  template void spmv_coo_segmented(T, const Coo<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
