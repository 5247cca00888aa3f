// Device-side building blocks shared by the CUDA kernels: warp reductions and
// scans, the BLAS-style store, searches. Every warp-level function here uses
// full-mask shuffles, so every lane of the warp must call it (kernels keep
// idle lanes in the loop with a predicate instead of returning early).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "common/merge_path.hpp"

namespace spx::cuda {

inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kWarpSize = 32;

// The binary searches of every kernel. (cuda::std::lower_bound is not public
// in the CCCL of CUDA 13.0, and cub::LowerBound compares the entries as they
// are, where the kernels compare column indices of either width, or keys, as
// 64-bit integers.)

/// The first position p in [lo, hi) where before(a[p]) is false, or hi
/// (std::partition_point: before holds on a prefix of [lo, hi)).
template <class K, class Before>
__device__ __forceinline__ std::int64_t partition_point_index(const K* a, std::int64_t lo,
                                                              std::int64_t hi, Before before) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (before(a[mid]))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// The first position p in [lo, hi) of the sorted a[] with a[p] >= v, or hi
/// (std::lower_bound), the entries compared as V.
template <class K, class V>
__device__ __forceinline__ std::int64_t lower_bound_index(const K* a, std::int64_t lo,
                                                          std::int64_t hi, V v) {
  static_assert(sizeof(V) >= sizeof(K), "compare the entries in a type at least as wide");
  return partition_point_index(a, lo, hi, [v](K x) { return static_cast<V>(x) < v; });
}

/// The first position p in [lo, hi) of the sorted a[] with a[p] > v, or hi
/// (std::upper_bound), the entries compared as V.
template <class K, class V>
__device__ __forceinline__ std::int64_t upper_bound_index(const K* a, std::int64_t lo,
                                                          std::int64_t hi, V v) {
  static_assert(sizeof(V) >= sizeof(K), "compare the entries in a type at least as wide");
  return partition_point_index(a, lo, hi, [v](K x) { return static_cast<V>(x) <= v; });
}

/// a / b rounded up (a ≥ 0, b > 0), on the host and the device.
__host__ __device__ constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

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

/// Sum over each group of `width` consecutive lanes (a power of two, 1..32,
/// the same for the whole warp); the result is valid in the group's first
/// lane. Fixed order: deterministic.
template <class T>
__device__ __forceinline__ T group_sum(T v, int width) {
  for (int offset = width >> 1; offset > 0; offset >>= 1)
    v += __shfl_down_sync(kFullMask, v, offset, width);
  return v;
}

/// group_sum with a compile-time width (the loop unrolled).
template <int Width, class T>
__device__ __forceinline__ T group_sum(T v) {
  return group_sum(v, Width);
}

/// Sum over the lanes at this lane's position in every group of `Width`
/// consecutive lanes (lanes l, l ^ Width, l ^ 2·Width, ...; Width = 1: the
/// whole warp), by xor shuffles: every lane gets its sum. Fixed order:
/// deterministic.
template <int Width = 1, class T>
__device__ __forceinline__ T across_groups_sum(T v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset >= Width; offset >>= 1)
    v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

/// The largest v over the warp; every lane gets it.
template <class T>
__device__ __forceinline__ T warp_max(T v) {
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1)
    v = max(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

/// Whether this lane starts a run of equal consecutive keys across the
/// warp's lanes (`head`; lane 0 always does), and the ballot of the lanes
/// that do (bit l set: lane l starts a run).
template <class K>
__device__ __forceinline__ unsigned run_heads(K key, int lane, bool& head) {
  const K before = __shfl_up_sync(kFullMask, key, 1);
  head = lane == 0 || before != key;
  return __ballot_sync(kFullMask, head);
}

/// Inclusive sum within runs of equal consecutive keys across the warp's lanes
/// (keys in any order; a run is a maximal stretch of equal keys). Returns the
/// partial sum of the lane's run up to and including the lane; `heads` gets
/// the lanes that start a run (bit l set: lane l starts one; lane 0 always).
template <class K, class T>
__device__ __forceinline__ T warp_run_scan(K key, T v, int lane, unsigned& heads) {
  bool head = false;
  heads = run_heads(key, lane, head);
  // The first lane of this lane's run: the highest head at or below the lane.
  const int run_start = 31 - __clz(heads & (kFullMask >> (31 - lane)));
#pragma unroll
  for (int d = 1; d < kWarpSize; d <<= 1) {
    const T up = __shfl_up_sync(kFullMask, v, d);
    if (lane - d >= run_start) v += up;
  }
  return v;
}

/// The sum of each run of equal consecutive keys (as warp_run_scan),
/// delivered at the run's first lane (`*head` true there) instead of its
/// last: a down-sweep, lane l summing lanes [l, min(l + 2o - 1, end of run)]
/// after the step of offset o. Used by the batched kernels; not
/// interchangeable with warp_run_scan, whose up-sweep associates the
/// additions from the other end (another rounding).
template <class T>
__device__ T run_sum_at_head(std::int64_t key, T v, bool* head) {
  const int lane = threadIdx.x & 31;
  const unsigned heads = run_heads(key, lane, *head);
  // Last lane of this lane's run: one before the next head, or 31.
  const unsigned later = lane == 31 ? 0u : heads & (~0u << (lane + 1));
  const int end = later != 0 ? __ffs(later) - 2 : 31;
  for (int off = 1; off < 32; off <<= 1) {
    const T other = __shfl_down_sync(kFullMask, v, off);
    if (lane + off <= end) v += other;
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

/// sum += v[o] * x[c[o]] for o = o0, o1, o2, o3 in that order, the four loads
/// of c, of v and of x each issued before the first product (independent
/// loads in flight: the rounds of the ELLPACK and JAD row kernels).
template <class T, class I, class Off>
__device__ __forceinline__ void add_four(T& sum, const I* c, const T* v, const T* x, Off o0, Off o1,
                                         Off o2, Off o3) {
  const I c0 = c[o0], c1 = c[o1], c2 = c[o2], c3 = c[o3];
  const T v0 = v[o0], v1 = v[o1], v2 = v[o2], v3 = v[o3];
  const T x0 = __ldg(x + c0), x1 = __ldg(x + c1), x2 = __ldg(x + c2), x3 = __ldg(x + c3);
  sum += v0 * x0;
  sum += v1 * x1;
  sum += v2 * x2;
  sum += v3 * x3;
}

/// A stored value as T: itself, or the reduced value of SELL-LP or DIA-LP (lowp.hpp) widened (float
/// → double; bfloat16, its 16 bits, → float by a shift).
template <class T, class S>
__device__ __forceinline__ T widen(S v) {
  if constexpr (std::is_same_v<S, std::uint16_t>)
    return __uint_as_float(static_cast<unsigned>(v) << 16);
  else
    return static_cast<T>(v);
}

/// Merge-path search (Merrill and Garland), shared with the CPU kernels.
using spx::detail::merge_path_rows;

}  // namespace spx::cuda
