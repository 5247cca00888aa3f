// SELL-LP SpMV on the GPU (sell_lp.hpp): SELL's row kernel (sell.cu,
// ellpack_rows.cuh) over values stored in reduced precision, each widened to
// T in a register before its product (float → double with a conversion;
// bfloat16 → float with a shift of its 16 bits): x, y, the products and the
// sums stay in T. Per stored nonzero the kernel loads sizeof(S) + sizeof(I)
// bytes of the matrix instead of sizeof(T) + sizeof(I): f64/i32 moves 8
// bytes instead of 12, f32/i32 6 instead of 8.
//
//   ThreadPerRow   one thread per stored row;
//   ThreadsPerRow  SELL-P: V lanes per row (sell_lanes(threads_per_row)).
//
// Geometry, the predicated rounds of four entries, the lanes' partial sums
// added in lane order (deterministic) and the output permutation are those
// of rows_kernel with SellLayout; the kernel is its own here (ellpack_rows.cuh
// stays SELL's) because its value loads differ. Auto: as SELL's
// (ThreadsPerRow when threads_per_row > 1).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"
#include "cuda/launch.hpp"

namespace spx::cuda {
namespace {

__device__ __forceinline__ double widen_value(float s, double) {
  return static_cast<double>(s);
}
__device__ __forceinline__ float widen_value(std::uint16_t s, float) {
  return __uint_as_float(static_cast<unsigned>(s) << 16);
}

/// y[perm(i)] = alpha * (stored row i)·x + beta * y[perm(i)], V lanes per row.
template <int V, class Off, class T, class S, class I>
__global__ void __launch_bounds__(kBlock)
    sell_lp_kernel(std::int64_t rows, ellpack::SellLayout<I> layout, const I* __restrict__ row_len,
                   const I* __restrict__ col, const S* __restrict__ val, const T* __restrict__ x,
                   T alpha, T beta, T* __restrict__ y) {
  static_assert(V >= 1 && V <= kWarpSize && (V & (V - 1)) == 0, "V: a power of two up to 32");
  constexpr int R = kBlock / V;
  const int rr = static_cast<int>(threadIdx.x) % R;
  const int sub = static_cast<int>(threadIdx.x) / R;
  const std::int64_t i = blockIdx.x * std::int64_t{R} + rr;

  T sum = 0;
  if (i < rows) {
    const Off n = static_cast<Off>(row_len[i]);
    const ellpack::Slot s = layout.slot(i);
    const Off stride = static_cast<Off>(s.stride);
    const S* __restrict__ v = val + s.base;
    const I* __restrict__ c = col + s.base;
    for (Off j = sub; j < n; j += 4 * V) {
      I cu[4];
      T vu[4], xu[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const bool in = j + u * V < n;
        const Off o = (j + u * V) * stride;
        cu[u] = in ? c[o] : I{0};
        vu[u] = in ? widen_value(v[o], T{}) : T{0};
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        xu[u] = j + u * V < n ? __ldg(x + cu[u]) : T{0};
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (j + u * V < n) sum += vu[u] * xu[u];
    }
  }

  if constexpr (V > 1) {
    __shared__ T part[kBlock];
    part[threadIdx.x] = sum;
    __syncthreads();
    if (sub == 0) {
#pragma unroll
      for (int k = 1; k < V; ++k)
        sum += part[k * R + rr];
    }
  }
  if (i < rows && sub == 0) store_axpby(y, layout.out(i), alpha, sum, beta);
}

template <int V, Value T, Index I>
void launch_sell_lp(const char* name, T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                    cudaStream_t stream) {
  const ellpack::SellLayout<I> layout{A.slice_ptr().data(),
                                      A.perm().empty() ? nullptr : A.perm().data(),
                                      ellpack::RowDivisor(A.slice_size())};
  const std::int64_t rows = A.rows();
  const I* len = A.row_len().data();
  const I* col = A.col_idx().data();
  const reduced_value_t<T>* val = A.values().data();
  const unsigned grid = grid_size(rows * V, kBlock, name);
  if (A.stored() <= 0x7fffffff) {
    sell_lp_kernel<V, std::int32_t>
        <<<grid, kBlock, 0, stream>>>(rows, layout, len, col, val, x, alpha, beta, y);
  } else {
    sell_lp_kernel<V, std::int64_t>
        <<<grid, kBlock, 0, stream>>>(rows, layout, len, col, val, x, alpha, beta, y);
  }
  check_launch(name);
}

}  // namespace

template <Value T, Index I>
void spmv_sell_lp_thread(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  launch_sell_lp<1>("sell_lp_kernel<1>", alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_sell_lp_threads(T alpha, const SellLp<T, I>& A, const T* x, T beta, T* y,
                          const ExecContext& ctx) {
  ellpack::with_sell_lanes(A.threads_per_row(), [&](auto lanes) {
    launch_sell_lp<decltype(lanes)::value>("sell_lp_kernel (SELL-P lanes)", alpha, A, x, beta, y,
                                           ctx.stream);
  });
}

template <Value T, Index I>
Algorithm choose_sell_lp(const SellLp<T, I>& A) {
  return A.threads_per_row() > 1 ? Algorithm::ThreadsPerRow : Algorithm::ThreadPerRow;
}

#define SPX_INST(T, I)                                                                             \
  template void spmv_sell_lp_thread(T, const SellLp<T, I>&, const T*, T, T*, const ExecContext&);  \
  template void spmv_sell_lp_threads(T, const SellLp<T, I>&, const T*, T, T*, const ExecContext&); \
  template Algorithm choose_sell_lp(const SellLp<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
