// SELL-pack SpMV on the GPU: SELL's row kernel (ellpack_rows.cuh: geometry,
// rounds of four predicated loads, lanes' sums added in lane order) with the
// columns read from the slice's 16-bit offsets (packed slices) or its full
// indices (fallback slices): the rounds are SELL's own loop,
// ellpack::predicated_lane_sum, with the column type as its parameter.
//
//   ThreadPerRow   one thread per stored row;
//   ThreadsPerRow  SELL-P: V lanes per row, V = sell_lanes(threads_per_row).
//
// A packed slice moves sizeof(T) + 2 bytes per stored entry instead of
// sizeof(T) + sizeof(I). The 16-bit loads are coalesced as SELL's are: a
// warp's 32 threads hold 32 consecutive rows (or 16 rows × 2 lanes for V =
// 16, whole rows for V = 32) and read entry j of each at consecutive
// addresses (64 bytes per warp-load of offsets). The packed-or-fallback test
// is one branch per row on its slice's base; whenever C is a multiple of the
// rows a warp holds (32/V, or 1 for V ≥ 32: the default C = 32 with any V),
// every thread of a warp lies in one slice and the branch is uniform, so
// fallback slices add no divergence to packed ones. Each row's entries are
// summed in the same order as SELL's kernel (bitwise the same y).
//
// Auto: ThreadsPerRow when the format was built with threads_per_row > 1,
// ThreadPerRow otherwise (SELL's rule).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/ellpack_rows.cuh"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {

namespace {

/// y[perm[i]] = alpha * (row i of A) x + beta * y[perm[i]] for stored rows i
/// < rows, V lanes per row (ellpack_rows.cuh's geometry). Off: the type of
/// offsets into the entry arrays (32-bit below 2^31 stored entries).
template <int V, class Off, class T, class I>
__global__ void __launch_bounds__(kBlock)
    sell_pack_kernel(std::int64_t rows, ellpack::RowDivisor C, const I* __restrict__ slice_ptr,
                     const I* __restrict__ pack_ptr, const I* __restrict__ slice_base,
                     const I* __restrict__ perm, const I* __restrict__ row_len,
                     const std::uint16_t* __restrict__ col16, const I* __restrict__ col32,
                     const T* __restrict__ val, const T* __restrict__ x, T alpha, T beta,
                     T* __restrict__ y) {
  static_assert(V >= 1 && V <= kWarpSize && (V & (V - 1)) == 0, "V: a power of two up to 32");
  constexpr int R = kBlock / V;  // rows per block
  const int rr = static_cast<int>(threadIdx.x) % R;
  const int sub = static_cast<int>(threadIdx.x) / R;
  const std::int64_t i = blockIdx.x * std::int64_t{R} + rr;

  T sum = 0;
  if (i < rows) {
    const Off n = static_cast<Off>(row_len[i]);
    const std::int64_t s = C.div(i);
    const Off r = static_cast<Off>(i - s * C.d);
    const Off stride = static_cast<Off>(C.d);
    const Off first = static_cast<Off>(slice_ptr[s]);
    const Off packed_before = static_cast<Off>(pack_ptr[s]);
    const std::int64_t base = slice_base[s];
    const T* __restrict__ v = val + first + r;
    if (base >= 0)
      sum = ellpack::predicated_lane_sum<V, Off>(n, sub, stride, v, col16 + packed_before + r,
                                                 x + base);
    else
      sum = ellpack::predicated_lane_sum<V, Off>(n, sub, stride, v,
                                                 col32 + (first - packed_before) + r, x);
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

  if (i < rows && sub == 0)
    store_axpby(y, perm != nullptr ? static_cast<std::int64_t>(perm[i]) : i, alpha, sum, beta);
}

template <int V, Value T, Index I>
void launch_sell_pack(const char* name, T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                      cudaStream_t stream) {
  const std::int64_t rows = A.rows();
  const ellpack::RowDivisor C(A.slice_size());
  const I* perm = A.perm().empty() ? nullptr : A.perm().data();
  const unsigned grid = grid_size(rows * V, kBlock, name);
  const auto launch = [&](auto off) {
    using Off = decltype(off);
    sell_pack_kernel<V, Off><<<grid, kBlock, 0, stream>>>(
        rows, C, A.slice_ptr().data(), A.pack_ptr().data(), A.slice_base().data(), perm,
        A.row_len().data(), A.col16().data(), A.col_idx().data(), A.values().data(), x, alpha, beta,
        y);
  };
  if (A.stored() <= 0x7fffffff)
    launch(std::int32_t{0});
  else
    launch(std::int64_t{0});
  check_launch(name);
}

}  // namespace

template <Value T, Index I>
void spmv_sell_pack_thread(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                           const ExecContext& ctx) {
  launch_sell_pack<1>("sell_pack_kernel<1>", alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_sell_pack_threads(T alpha, const SellPack<T, I>& A, const T* x, T beta, T* y,
                            const ExecContext& ctx) {
  ellpack::with_sell_lanes(A.threads_per_row(), [&](auto lanes) {
    launch_sell_pack<decltype(lanes)::value>("sell_pack_kernel (SELL-P lanes)", alpha, A, x, beta,
                                             y, ctx.stream);
  });
}

template <Value T, Index I>
Algorithm choose_sell_pack(const SellPack<T, I>& A) {
  return A.threads_per_row() > 1 ? Algorithm::ThreadsPerRow : Algorithm::ThreadPerRow;
}

#define SPX_INST(T, I)                                                            \
  template void spmv_sell_pack_thread(T, const SellPack<T, I>&, const T*, T, T*,  \
                                      const ExecContext&);                        \
  template void spmv_sell_pack_threads(T, const SellPack<T, I>&, const T*, T, T*, \
                                       const ExecContext&);                       \
  template Algorithm choose_sell_pack(const SellPack<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
