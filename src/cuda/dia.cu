// DIA SpMV on the GPU (survey §4.5): a thread per row streams the stored
// diagonals without indirection. The value of diagonal d for row i sits at
// values[d * rows + i], so the threads of a warp read consecutive values of
// one diagonal (coalesced) and consecutive entries x[i + offset] (coalesced
// too). The diagonals are taken 8 at a time: the 8 offsets, then the 8 values
// and 8 x entries are loaded before any multiply, so each thread keeps up to
// 16 independent loads in flight. Positions outside the matrix (column
// i + offset outside [0, cols)) hold zeros and are skipped, so x is never read
// out of bounds. The explicit zeros of the format are stored as zeros on
// their diagonals and add nothing. Deterministic: one thread sums its row in
// diagonal order.
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
    dia_kernel(std::int64_t rows, std::int64_t cols, std::int64_t ndiag,
               const I* __restrict__ offsets, const T* __restrict__ values, const T* __restrict__ x,
               T alpha, T beta, T* __restrict__ y) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  T sum = 0;
  for (std::int64_t d0 = 0; d0 < ndiag; d0 += kChunk) {
    // Phase 1: the chunk's offsets (the same address across the warp: broadcast).
    std::int64_t col[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      col[u] = d0 + u < ndiag ? i + static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : -1;
    // Phase 2: independent loads of values (streamed once) and x.
    T a[kChunk], b[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const bool inside = col[u] >= 0 && col[u] < cols;  // false past ndiag too (col = -1)
      a[u] = inside ? __ldcs(values + (d0 + u) * rows + i) : T{0};
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
void spmv_dia(T alpha, const Dia<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows, kBlock, "dia_kernel");
  dia_kernel<<<grid, kBlock, 0, ctx.stream>>>(rows, std::int64_t{A.cols()}, A.ndiag(),
                                              A.offsets().data(), A.values().data(), x, alpha, beta,
                                              y);
  check_launch("dia_kernel");
}

#define SPX_INST(T, I) \
  template void spmv_dia(T, const Dia<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
