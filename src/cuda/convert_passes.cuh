// Device helpers shared by the conversion passes (convert_scan.cu,
// convert_ellpack.cu, convert_diag.cu, convert_lowp.cu,
// convert_sell_pack.cu): the stream they run on, binary searches, the tiles
// of the passes over entries, and the rounding to the reduced storage types.
// Included by those files only.
//
// Tiles: a pass over positions [0, n) of an output cut into segments
// (segment s starts at begin[s]; the CSR rows, with begin = row_ptr) gives
// each block kTile consecutive positions; the block finds the segments of
// its first and last position once; each thread takes kItems consecutive
// positions, searches the first one's segment between the two and steps to
// the next ones'.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda::conv {

inline constexpr cudaStream_t kStream = 0;  ///< the default stream
inline constexpr int kItems = 8;            ///< consecutive positions per thread of a tile
inline constexpr std::int64_t kTile = std::int64_t{kBlock} * kItems;

/// The largest s in [lo, hi] with a[s] <= pos (a non-decreasing, a[lo] <= pos).
template <class A>
__device__ __forceinline__ std::int64_t last_le(const A* a, std::int64_t lo, std::int64_t hi,
                                                std::int64_t pos) {
  return upper_bound_index(a, lo, hi + 1, pos) - 1;
}

/// The segments [lo, hi] of the block's first and last position of the n
/// (shared by the block).
template <class B>
__device__ __forceinline__ void tile_segments(const B* begin, std::int64_t segs, std::int64_t n,
                                              std::int64_t& lo, std::int64_t& hi) {
  __shared__ std::int64_t s_lo, s_hi;
  const std::int64_t t0 = blockIdx.x * kTile;
  const std::int64_t t1 = min(n, t0 + kTile) - 1;
  if (threadIdx.x == 0) s_lo = last_le(begin, 0, segs - 1, t0);
  if (threadIdx.x == 32) s_hi = last_le(begin, 0, segs - 1, t1);
  __syncthreads();
  lo = s_lo;
  hi = s_hi;
}

/// Calls f(k, s) for this thread's positions k < n of the block's tile, s the
/// segment of k (begin[s] <= k < begin[s + 1]): kItems consecutive
/// positions a thread, its first one's segment searched between the tile's
/// first and last, the next ones' found by stepping to the next segment
/// (searching past a run of empty ones). (A
/// search per position, kBlock apart, left the passes bound by the
/// searches' instructions: 0.28 ms for the 20 M entries of
/// stencil3d-7pt-n144, H200, against 25 us to read them.)
template <class B, class F>
__device__ __forceinline__ void for_each_in_tile(const B* begin, std::int64_t segs, std::int64_t n,
                                                 F&& f) {
  std::int64_t lo, hi;
  tile_segments(begin, segs, n, lo, hi);
  const std::int64_t k0 = blockIdx.x * kTile + std::int64_t{threadIdx.x} * kItems;
  if (k0 >= n) return;
  const std::int64_t k1 = min(n, k0 + kItems);
  // Where segment s ends (the tile's last segment runs past its last position).
  const auto end_of = [&](std::int64_t s) {
    return s < hi ? static_cast<std::int64_t>(begin[s + 1]) : k1;
  };
  std::int64_t s = last_le(begin, lo, hi, k0), next = end_of(s);
  for (std::int64_t k = k0; k < k1; ++k) {
    if (k >= next) {
      // The next segment, or past a run of empty ones by a search (a step
      // each would cost a thread the length of the run).
      next = end_of(++s);
      if (k >= next) next = end_of(s = last_le(begin, s, hi, k));
    }
    f(k, s);
  }
}

/// A value rounded to the reduced storage type (SELL-LP's and DIA-LP's), bit
/// for bit as the host's lowp::narrow: double → float with __double2float_rn
/// (round to nearest even, as the host's cast in the default rounding mode),
/// float → bfloat16 bits with lowp::to_bf16's integer rounding (NaN kept
/// quiet).
__device__ __forceinline__ float round_value(double v) {
  return __double2float_rn(v);
}
__device__ __forceinline__ std::uint16_t round_value(float f) {
  const unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/// v as stored in an array of S: itself (S = T), or rounded (S the reduced
/// storage type).
template <class S, class T>
__device__ __forceinline__ S stored_as(T v) {
  if constexpr (std::is_same_v<S, T>)
    return v;
  else
    return round_value(v);
}

/// Blocks of kBlock threads for `threads` threads (a pass named `what`).
inline unsigned blocks_for(std::int64_t threads, const char* what) {
  return grid_size(threads, kBlock, what);
}

/// Blocks for the tiles of a pass over `n` positions.
inline unsigned tiles_for(std::int64_t n, const char* what) {
  return grid_size((n + kItems - 1) / kItems, kBlock, what);
}

}  // namespace spx::cuda::conv
