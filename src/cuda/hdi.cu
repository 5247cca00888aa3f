// HDI SpMV on the GPU (survey §4.5, hacked DIA): a thread per row, the rows
// of a hack on consecutive threads, so with the default hack of 32 rows a warp
// owns exactly one hack (larger hacks span several warps, smaller ones share
// a warp). Each thread finds its hack h = row / H, reads the hack's diagonal
// range hack_ptr[h] .. hack_ptr[h+1] (the same for every thread of the hack:
// broadcast), and streams the hack's diagonals without indirection: local
// diagonal d of local row r sits at values[H·hack_ptr[h] + d·hack_rows(h) + r],
// so the threads of a hack read consecutive values (coalesced) and consecutive
// x entries. Diagonals are taken 8 at a time with independent loads, as in the
// DIA kernel. Positions whose column falls outside the matrix hold zeros and
// are skipped (x is never read out of bounds). Deterministic.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {
namespace {

constexpr int kBlock = 256;  ///< threads per block
constexpr int kChunk = 8;    ///< diagonals loaded together per thread

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    hdi_kernel(std::int64_t rows, std::int64_t cols, std::int64_t hack,
               const I* __restrict__ hack_ptr, const I* __restrict__ offsets,
               const T* __restrict__ values, const T* __restrict__ x, T alpha, T beta,
               T* __restrict__ y) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  // 32-bit division when the rows allow it (a 64-bit one costs several times more).
  const std::int64_t h = rows <= UINT32_MAX && hack <= UINT32_MAX
                             ? static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(hack)
                             : i / hack;
  const std::int64_t first = h * hack;              // the hack's first row
  const std::int64_t hr = min(hack, rows - first);  // rows of this hack
  const std::int64_t d_begin = __ldg(hack_ptr + h), d_end = __ldg(hack_ptr + h + 1);
  const T* v = values + hack * d_begin + (i - first);  // local diagonal 0, this row
  T sum = 0;
  for (std::int64_t d0 = d_begin; d0 < d_end; d0 += kChunk) {
    // Phase 1: the chunk's offsets (one address per hack: broadcast).
    std::int64_t col[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      col[u] = d0 + u < d_end ? i + static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : -1;
    // Phase 2: independent loads of values (streamed once) and x.
    T a[kChunk], b[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const bool inside = col[u] >= 0 && col[u] < cols;  // false past the hack's diagonals
      a[u] = inside ? __ldcs(v + (d0 - d_begin + u) * hr) : T{0};
      b[u] = inside ? __ldg(x + col[u]) : T{0};
    }
    // Phase 3: multiply-add in diagonal order.
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      sum += a[u] * b[u];
  }
  store_axpby(y, i, alpha, sum, beta);
}

}  // namespace

template <Value T, Index I>
void spmv_hdi(T alpha, const Hdi<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows, kBlock, "hdi_kernel");
  hdi_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      rows, std::int64_t{A.cols()}, std::int64_t{A.hack_size()}, A.hack_ptr().data(),
      A.offsets().data(), A.values().data(), x, alpha, beta, y);
  check_launch("hdi_kernel");
}

#define SPX_INST(T, I) \
  template void spmv_hdi(T, const Hdi<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
