// Device-side building blocks shared by the CUDA kernels: warp reductions and
// scans, the BLAS-style store, searches. Every warp-level function here uses
// full-mask shuffles, so every lane of the warp must call it (kernels keep
// idle lanes in the loop with a predicate instead of returning early).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/merge_path.hpp"

namespace spx::cuda {

inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kWarpSize = 32;

/// y[r] = alpha*sum + beta*y[r]; y[r] is not read when beta == 0 (BLAS).
template <class T>
__device__ __forceinline__ void store_axpby(T* y, std::int64_t r, T alpha, T sum, T beta) {
  y[r] = beta == T{0} ? alpha * sum : alpha * sum + beta * y[r];
}

/// y[r] = beta*y[r] (an empty row); y[r] is not read when beta == 0.
template <class T>
__device__ __forceinline__ void store_scaled(T* y, std::int64_t r, T beta) {
  y[r] = beta == T{0} ? T{0} : beta * y[r];
}

/// Sum over each group of `Width` consecutive lanes (a power of two, 1..32);
/// the result is valid in the group's first lane. Fixed order: deterministic.
template <int Width, class T>
__device__ __forceinline__ T group_sum(T v) {
#pragma unroll
  for (int offset = Width / 2; offset > 0; offset >>= 1)
    v += __shfl_down_sync(kFullMask, v, offset, Width);
  return v;
}

/// Inclusive sum within runs of equal consecutive keys across the warp's lanes
/// (keys in any order; a run is a maximal stretch of equal keys). Returns the
/// partial sum of the lane's run up to and including the lane; `heads` gets
/// the lanes that start a run (bit l set: lane l starts one; lane 0 always).
template <class K, class T>
__device__ __forceinline__ T warp_run_scan(K key, T v, int lane, unsigned& heads) {
  const K before = __shfl_up_sync(kFullMask, key, 1);
  heads = __ballot_sync(kFullMask, lane == 0 || before != key);
  // The first lane of this lane's run: the highest head at or below the lane.
  const int run_start = 31 - __clz(heads & (kFullMask >> (31 - lane)));
#pragma unroll
  for (int d = 1; d < kWarpSize; d <<= 1) {
    const T up = __shfl_up_sync(kFullMask, v, d);
    if (lane - d >= run_start) v += up;
  }
  return v;
}

/// True when `lane` ends its run: the last lane, or the next lane starts a run.
__device__ __forceinline__ bool run_tail(unsigned heads, int lane) {
  return lane == kWarpSize - 1 || ((heads >> (lane + 1)) & 1u) != 0;
}

/// The number of the warp's 32 values `e` (one per lane, non-decreasing in lane
/// order) that are <= v, for each lane's own v: binary lifting over shuffles.
__device__ __forceinline__ int warp_count_le(std::int64_t e, std::int64_t v) {
  int count = 0;
#pragma unroll
  for (int step = kWarpSize; step > 0; step >>= 1) {
    const int probe = min(count + step, kWarpSize) - 1;
    const std::int64_t ep = __shfl_sync(kFullMask, e, probe);
    if (count + step <= kWarpSize && ep <= v) count += step;
  }
  return count;
}

/// The first index i in [0, n) with a[i] > v, or n (a sorted ascending).
template <class I>
__device__ __forceinline__ std::int64_t upper_bound(const I* a, std::int64_t n, std::int64_t v) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(a[mid]) <= v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Merge-path search (Merrill and Garland), shared with the CPU kernels.
using spx::detail::merge_path_rows;

}  // namespace spx::cuda
