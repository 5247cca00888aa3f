// Device passes of the conversion to SELL-pack, run on a device SELL (the
// SELL conversion's result, src/cuda/convert_device.cpp): the slices' bases
// and packed sizes, then the split of the column indices into 16-bit offsets
// (packed slices) and full indices (fallback slices). They write what the
// host's packing writes (src/core/convert_sell_pack.cpp), bit for bit.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/primitives.cuh"

namespace spx::cuda::conv {
namespace {

/// One warp per slice: the smallest first column and the largest last column
/// of its rows' true entries, reduced over the warp; base[s] = that smallest
/// column when the span fits 16 bits (0 for a slice without entries), else
/// −1; count[s] = the slice's stored entries when packed, else 0;
/// count[slices] = 0.
template <class I>
__global__ void __launch_bounds__(kBlock)
    pack_bases_kernel(std::int64_t rows, std::int64_t C, std::int64_t slices,
                      const I* __restrict__ slice_ptr, const I* __restrict__ slice_width,
                      const I* __restrict__ row_len, const I* __restrict__ col,
                      I* __restrict__ base, std::int64_t* __restrict__ count) {
  const std::int64_t s = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) & (kWarpSize - 1);
  if (s == 0 && lane == 0) count[slices] = 0;
  if (s >= slices) return;  // uniform across the warp
  std::int64_t lo = LLONG_MAX, hi = -1;
  const std::int64_t first = slice_ptr[s], n = min(C, rows - s * C);
  for (std::int64_t r = lane; r < n; r += kWarpSize) {
    const std::int64_t l = row_len[s * C + r];
    if (l > 0) {
      lo = min(lo, static_cast<std::int64_t>(col[first + r]));
      hi = max(hi, static_cast<std::int64_t>(col[first + (l - 1) * C + r]));
    }
  }
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    lo = min(lo, __shfl_xor_sync(kFullMask, lo, offset));
    hi = max(hi, __shfl_xor_sync(kFullMask, hi, offset));
  }
  if (lane == 0) {
    const bool packed = hi < 0 || hi - lo <= 65535;
    base[s] = static_cast<I>(hi < 0 ? 0 : (packed ? lo : -1));
    count[s] = packed ? C * static_cast<std::int64_t>(slice_width[s]) : 0;
  }
}

/// Thread per stored entry k, in tiles (convert_passes.cuh): its slice by a
/// binary search of slice_ptr between the slices of the tile's first and
/// last entry (a search over every slice, 18 dependent loads an entry on a
/// large matrix, cost more than the rest of the pass), then the offset from
/// the base (0 for padding) into col16, or the index into col32.
template <class I>
__global__ void __launch_bounds__(kBlock)
    pack_fill_kernel(std::int64_t rows, std::int64_t C, std::int64_t slices, std::int64_t stored,
                     const I* __restrict__ slice_ptr, const I* __restrict__ pack_ptr,
                     const I* __restrict__ base, const I* __restrict__ row_len,
                     const I* __restrict__ col, std::uint16_t* __restrict__ col16,
                     I* __restrict__ col32) {
  for_each_in_tile(slice_ptr, slices, stored, [&](std::int64_t k, std::int64_t s) {
    const std::int64_t off = k - slice_ptr[s], b = base[s];
    if (b >= 0) {
      const std::int64_t j = off / C, i = s * C + (off - j * C);
      const bool real = i < rows && j < static_cast<std::int64_t>(row_len[i]);
      col16[pack_ptr[s] + off] = static_cast<std::uint16_t>(real ? col[k] - b : 0);
    } else {
      col32[k - pack_ptr[s]] = col[k];
    }
  });
}

}  // namespace

template <Index I>
void sell_pack_bases(std::int64_t rows, std::int64_t C, std::int64_t slices, const I* slice_ptr,
                     const I* slice_width, const I* row_len, const I* col, I* base,
                     std::int64_t* count) {
  const std::int64_t threads = (slices > 0 ? slices : 1) * kWarpSize;
  pack_bases_kernel<<<grid_size(threads, kBlock, "pack_bases_kernel"), kBlock, 0, kStream>>>(
      rows, C, slices, slice_ptr, slice_width, row_len, col, base, count);
  check_launch("pack_bases_kernel");
}

template <Index I>
void sell_pack_fill(std::int64_t rows, std::int64_t C, std::int64_t slices, std::int64_t stored,
                    const I* slice_ptr, const I* pack_ptr, const I* base, const I* row_len,
                    const I* col, std::uint16_t* col16, I* col32) {
  if (stored <= 0 || slices <= 0) return;
  pack_fill_kernel<<<tiles_for(stored, "pack_fill_kernel"), kBlock, 0, kStream>>>(
      rows, C, slices, stored, slice_ptr, pack_ptr, base, row_len, col, col16, col32);
  check_launch("pack_fill_kernel");
}

#define SPX_INST(I)                                                                              \
  template void sell_pack_bases<I>(std::int64_t, std::int64_t, std::int64_t, const I*, const I*, \
                                   const I*, const I*, I*, std::int64_t*);                       \
  template void sell_pack_fill<I>(std::int64_t, std::int64_t, std::int64_t, std::int64_t,        \
                                  const I*, const I*, const I*, const I*, const I*,              \
                                  std::uint16_t*, I*);
SPX_INST(std::int32_t)
SPX_INST(std::int64_t)
#undef SPX_INST

}  // namespace spx::cuda::conv
