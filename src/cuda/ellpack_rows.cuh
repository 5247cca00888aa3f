// The row kernel shared by ELL, SELL-C-σ / SELL-P and HLL (device code,
// included by ell.cu, sell.cu and hll.cu only). The three formats differ only
// in where entry j of stored row i lives, always at base(i) + j*stride(i)
// (column-major inside the whole matrix, a slice or a hack), and in which
// output row stored row i writes (SELL permutes); a small `Layout` struct
// answers both, so one kernel template serves all three.
//
// Geometry: V lanes per row (V = 1, 2, ... 32), 256 threads per block, the
// block's R = 256/V rows consecutive. Thread t of the block takes row t % R
// and lane t / R, so the 32 threads of a warp hold 32 consecutive rows with
// the same lane (or, for V = 16 and 32, whole groups of rows): their loads of
// entry j fall on consecutive addresses. Lane `sub` takes the entries
// sub, sub + V, sub + 2V, ... below the row's length: padding is never read.
// The inner loop issues four independent loads of values, columns and x
// before it accumulates, so that each thread keeps several loads in flight;
// the tail of a row is either read one entry at a time (ELL, HLL) or in a
// last, predicated round of four (SELL: 1-15% faster on the H100's stencil
// and FEM members, while ELL and HLL were 3-14% slower that way; the
// predicated rounds, predicated_lane_sum, also serve SELL-LP and SELL-pack).
// Lanes' partial sums are added through shared memory by lane 0 in lane
// order: every kernel here is deterministic.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda::ellpack {

/// Where a stored row's entries lie: entry j at base + j*stride.
struct Slot {
  std::int64_t base;
  std::int64_t stride;
};

/// i / d for the row numbers of a slice or hack layout, without the 64-bit
/// division (a long software sequence on the GPU, paid once per row: on the
/// 7-point stencil it made SELL and HLL 10% slower than ELL): a shift when d
/// is a power of two (the default C = H = 32), else a 32-bit division while
/// i fits in 31 bits.
struct RowDivisor {
  std::int64_t d;
  int shift;  ///< log2(d) when d is a power of two, else -1
  explicit RowDivisor(std::int64_t divisor) : d(divisor), shift(-1) {
    if (d > 0 && (d & (d - 1)) == 0) {
      shift = 0;
      while ((std::int64_t{1} << shift) < d)
        ++shift;
    }
  }
  __device__ std::int64_t div(std::int64_t i) const {
    if (shift >= 0) return i >> shift;
    if (i <= 0x7fffffff && d <= 0x7fffffff)
      return static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(d);
    return i / d;
  }
};

/// ELL: entry j of row i at j*rows + i.
struct EllLayout {
  static constexpr bool kPredicatedRounds = false;
  std::int64_t rows;
  __device__ Slot slot(std::int64_t i) const { return {i, rows}; }
  __device__ std::int64_t out(std::int64_t i) const { return i; }
};

/// SELL-C-σ: entry j of stored row i (slice s = i / C, slot r = i % C) at
/// slice_ptr[s] + j*C + r; output row perm[i] (identity without perm).
template <class I>
struct SellLayout {
  static constexpr bool kPredicatedRounds = true;
  const I* slice_ptr;
  const I* perm;  ///< nullptr: identity
  RowDivisor C;
  __device__ Slot slot(std::int64_t i) const {
    const std::int64_t s = C.div(i);
    return {static_cast<std::int64_t>(slice_ptr[s]) + (i - s * C.d), C.d};
  }
  __device__ std::int64_t out(std::int64_t i) const {
    return perm != nullptr ? static_cast<std::int64_t>(perm[i]) : i;
  }
};

/// HLL: entry j of row i (hack h = i / H, r = i % H) at hack_ptr[h] + j*rows_h
/// + r, where rows_h = H except in a last, partial hack.
template <class I>
struct HllLayout {
  static constexpr bool kPredicatedRounds = false;
  const I* hack_ptr;
  RowDivisor H;
  std::int64_t rows;
  __device__ Slot slot(std::int64_t i) const {
    const std::int64_t h = H.div(i), first = h * H.d;
    return {static_cast<std::int64_t>(hack_ptr[h]) + (i - first), min(H.d, rows - first)};
  }
  __device__ std::int64_t out(std::int64_t i) const { return i; }
};

/// Σ over the lane's entries j = sub, sub + V, ... < n of widen<T>(v[j*stride])
/// * xb[c[j*stride]]: the predicated rounds of the SELL family (SELL, SELL-LP
/// through rows_kernel; SELL-pack, sell_pack.cu), rounds of four entries with
/// the last round's loads past the row predicated off (a short row costs one
/// or two load latencies). C: the column type, the full index I (x = xb) or
/// SELL-pack's 16-bit offset from its slice's first column (xb = x + base).
/// S: the stored value type, T or SELL-LP's reduced one; the values stay in
/// S until the multiply, after the round's loads are all issued (widening
/// each one as it arrived put a use right after every load and DIA-LP's loads
/// stopped overlapping, diag_rows.cuh). With S = T, widen is the identity.
/// The entries and their columns are read once, with evict-first loads
/// (__ldcs), as the CSR kernels' streams: x's lines then stay in the caches.
/// Against plain loads (H200, session 26, bench/profile/s26-stream-ab.sh, 16
/// members, both precisions): SELL, SELL-LP and SELL-pack 1.016-1.039x
/// (geomean), 1.07-1.10x on fem-b3-n500, 1.10-1.13x on road-n7000000 (f32),
/// 1.11x SELL on rmat-s21-d8 (f64), within noise on the stencils. ELL and HLL
/// (their own rounds, below) keep plain loads: there the same loads were
/// 1.1-1.3x faster on the FEM and road members but 0.71x on ELL's
/// random-n250000-d64 (f32) and 0.70x on HLL's two lanes on the power-law
/// members (f64), and L1::no_allocate loads did the same.
template <int V, class Off, class S, class C, class T>
__device__ __forceinline__ T predicated_lane_sum(Off n, int sub, Off stride,
                                                 const S* __restrict__ v, const C* __restrict__ c,
                                                 const T* __restrict__ xb) {
  T sum = 0;
  for (Off j = sub; j < n; j += 4 * V) {
    C cu[4];
    S vu[4];
    T xu[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const bool in = j + u * V < n;
      const Off o = (j + u * V) * stride;
      cu[u] = in ? __ldcs(c + o) : C{0};  // read once: evict first, x's lines stay
      vu[u] = in ? __ldcs(v + o) : S{0};
    }
#pragma unroll
    for (int u = 0; u < 4; ++u)
      xu[u] = j + u * V < n ? __ldg(xb + cu[u]) : T{0};
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (j + u * V < n) sum += widen<T>(vu[u]) * xu[u];
  }
  return sum;
}

/// y[out(i)] = alpha * (row i of A) x + beta * y[out(i)] for the stored rows
/// i < rows; V lanes per row (see the top of this file). Off: the type of
/// the offsets into the entry arrays, 32-bit whenever they hold fewer than
/// 2^31 entries (64-bit offsets cost registers, and registers cost resident
/// threads, which hide this kernel's latency). S: the stored value type, T
/// or (SELL-LP, predicated rounds only) a reduced one, widened to T at the
/// multiply (predicated_lane_sum).
template <int V, class Off, class S, class T, class I, class Layout>
__global__ void __launch_bounds__(kBlock)
    rows_kernel(std::int64_t rows, Layout layout, const I* __restrict__ row_len,
                const I* __restrict__ col, const S* __restrict__ val, const T* __restrict__ x,
                T alpha, T beta, T* __restrict__ y) {
  static_assert(V >= 1 && V <= kWarpSize && (V & (V - 1)) == 0, "V: a power of two up to 32");
  static_assert(std::is_same_v<S, T> || Layout::kPredicatedRounds,
                "reduced values: the predicated rounds only");
  constexpr int R = kBlock / V;  // rows per block
  const int rr = static_cast<int>(threadIdx.x) % R;
  const int sub = static_cast<int>(threadIdx.x) / R;
  const std::int64_t i = blockIdx.x * std::int64_t{R} + rr;

  // Phase 1: the lane's entries, four independent loads per round.
  T sum = 0;
  if (i < rows) {
    const Off n = static_cast<Off>(row_len[i]);
    const Slot s = layout.slot(i);
    const Off stride = static_cast<Off>(s.stride);
    const S* __restrict__ v = val + s.base;
    const I* __restrict__ c = col + s.base;
    if constexpr (Layout::kPredicatedRounds) {
      sum = predicated_lane_sum<V, Off>(n, sub, stride, v, c, x);
    } else if constexpr (std::is_same_v<S, T>) {
      // Whole rounds of four entries, then the tail one by one.
      Off j = sub;
      for (; j + 3 * V < n; j += 4 * V) {
        add_four(sum, c, v, x, j * stride, (j + V) * stride, (j + 2 * V) * stride,
                 (j + 3 * V) * stride);
      }
      for (; j < n; j += V) {
        const Off o = j * stride;
        sum += v[o] * __ldg(x + c[o]);
      }
    }
  }

  // Phase 2: lane 0 adds the other lanes' partial sums, in lane order. Every
  // thread of the block reaches the barrier (no early return above).
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

  // Phase 3: store (y not read when beta == 0).
  if (i < rows && sub == 0) store_axpby(y, layout.out(i), alpha, sum, beta);
}

/// Enqueues rows_kernel<V> over the stored rows of A (ELL, SELL, SELL-LP or HLL: its
/// rows(), row_len(), col_idx() and values()) with `layout` on `stream`,
/// checked; the entries of col_idx and values (padding included) pick the
/// offset type.
template <int V, class M, class Layout, class T>
void launch_rows(const char* name, const M& A, Layout layout, const T* x, T alpha, T beta, T* y,
                 cudaStream_t stream) {
  const std::int64_t rows = A.rows();
  const auto* row_len = A.row_len().data();
  const auto* col = A.col_idx().data();
  const auto* val = A.values().data();
  const unsigned grid = grid_size(rows * V, kBlock, name);
  if (static_cast<std::int64_t>(A.values().size()) <= 0x7fffffff) {
    rows_kernel<V, std::int32_t>
        <<<grid, kBlock, 0, stream>>>(rows, layout, row_len, col, val, x, alpha, beta, y);
  } else {
    rows_kernel<V, std::int64_t>
        <<<grid, kBlock, 0, stream>>>(rows, layout, row_len, col, val, x, alpha, beta, y);
  }
  check_launch(name);
}

/// Calls f(std::integral_constant<int, V>{}) with V = sell_lanes(threads_per_row):
/// the SELL-P lane count as a compile-time constant, for the launchers of the
/// SELL family's kernels (SELL-pack, SELL-LP).
template <class F>
void with_sell_lanes(int threads_per_row, F&& f) {
  switch (sell_lanes(threads_per_row)) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      return f(std::integral_constant<int, 32>{});
  }
}

}  // namespace spx::cuda::ellpack
