// Device passes of the conversions to the ELLPACK family (ELL, SELL, HLL, the
// ELL part of HYB) and to JAD: group widths, row lengths, the fill of the
// column-major groups, the COO part of HYB, and the jagged-diagonal counts.
//
// The fill writes what the host's fill_ell_group writes (src/core/
// convert_ellpack.hpp): slot s of a group holds the first min(length, width)
// entries of its row; the rest of the group's width is padding with a zero
// value and the row's last stored column (0 for an empty slot). One warp
// writes kSlotBlock consecutive slots × up to kWidthChunk entries: lane = slot,
// so that for every entry index the warp's stores are consecutive (coalesced),
// while each lane reads its own row front to back (cached lines). Long rows
// are split over several warps, so one long row does not serialize the pass.
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

template <class I>
__device__ __forceinline__ std::int64_t row_of_slot(const I* order, std::int64_t s) {
  return order != nullptr ? static_cast<std::int64_t>(order[s]) : s;
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    group_widths_kernel(const I* __restrict__ ptr, const I* __restrict__ order, std::int64_t rows,
                        std::int64_t C, std::int64_t* __restrict__ width) {
  const std::int64_t s = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const bool active = s < rows;
  std::int64_t len = 0, g = -1;
  if (active) {
    const std::int64_t r = row_of_slot(order, s);
    len = static_cast<std::int64_t>(ptr[r + 1]) - ptr[r];
    g = s / C;
  }
  // When the warp's slots all lie in one group, one atomic for the warp.
  const std::int64_t g0 = __shfl_sync(kFullMask, g, 0);
  const bool uniform = __all_sync(kFullMask, g == g0);
  if (uniform) {
    len = warp_max(len);
    if (lane == 0 && active && len > 0)
      atomicMax(reinterpret_cast<unsigned long long*>(width + g0),
                static_cast<unsigned long long>(len));
  } else if (active && len > 0) {
    atomicMax(reinterpret_cast<unsigned long long*>(width + g),
              static_cast<unsigned long long>(len));
  }
}

__global__ void __launch_bounds__(kBlock)
    group_sizes_kernel(std::int64_t* __restrict__ width, std::int64_t groups, std::int64_t C,
                       std::int64_t total_slots, std::int64_t round,
                       std::int64_t* __restrict__ size, std::int64_t* __restrict__ units) {
  const std::int64_t g = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (g > groups) return;
  if (g == groups) {
    size[g] = 0;
    units[g] = 0;
    return;
  }
  std::int64_t w = width[g];
  w = (w + round - 1) / round * round;
  width[g] = w;
  const std::int64_t slots = min(C, total_slots - g * C);
  size[g] = w > 0 && slots > LLONG_MAX / w ? LLONG_MAX : slots * w;
  units[g] = group_units(slots, w);
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    slot_lengths_kernel(const I* __restrict__ ptr, const I* __restrict__ order, std::int64_t rows,
                        std::int64_t cap, I* __restrict__ out) {
  const std::int64_t s = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (s >= rows) return;
  const std::int64_t r = row_of_slot(order, s);
  out[s] = static_cast<I>(min(static_cast<std::int64_t>(ptr[r + 1]) - ptr[r], cap));
}

template <class T, class I, class S>
__global__ void __launch_bounds__(kBlock)
    fill_groups_kernel(GroupFill<I> g, const I* __restrict__ ptr, const I* __restrict__ col,
                       const T* __restrict__ val, I* __restrict__ out_col,
                       S* __restrict__ out_val) {
  const std::int64_t unit = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (unit >= g.units) return;
  // The warp's group, and its place in the group: slot block, width chunk.
  const std::int64_t grp =
      g.unit_ptr != nullptr ? last_le(g.unit_ptr, std::int64_t{0}, g.groups - 1, unit) : 0;
  const std::int64_t w = g.width != nullptr ? g.width[grp] : g.width0;
  const std::int64_t first_unit = g.unit_ptr != nullptr ? g.unit_ptr[grp] : 0;
  const std::int64_t chunks = (w + kWidthChunk - 1) / kWidthChunk;
  const std::int64_t u = unit - first_unit;
  const std::int64_t block = u / chunks, chunk = u - block * chunks;
  const std::int64_t first = grp * g.C;
  const std::int64_t slots = min(g.C, g.total_slots - first);
  const std::int64_t r = block * kSlotBlock + lane;
  if (r >= slots) return;
  const std::int64_t s = first + r;
  const std::int64_t j0 = chunk * kWidthChunk, j1 = min(w, j0 + kWidthChunk);
  std::int64_t b = 0, n = 0;
  if (s < g.rows) {
    const std::int64_t row = row_of_slot(g.order, s);
    b = ptr[row];
    n = min(static_cast<std::int64_t>(ptr[row + 1]) - b, w);
  }
  const std::int64_t copy_end = min(j1, n);
  if (g.jd_ptr != nullptr) {  // JAD: no padding
#pragma unroll 4
    for (std::int64_t j = j0; j < copy_end; ++j) {
      const std::int64_t p = static_cast<std::int64_t>(g.jd_ptr[j]) + s;
      out_col[p] = __ldg(col + b + j);
      out_val[p] = stored_as<S>(__ldg(val + b + j));
    }
    return;
  }
  const std::int64_t base = (g.offset != nullptr ? g.offset[grp] : 0) + r;
#pragma unroll 4
  for (std::int64_t j = j0; j < copy_end; ++j) {
    const std::int64_t p = base + j * slots;
    out_col[p] = __ldg(col + b + j);
    out_val[p] = stored_as<S>(__ldg(val + b + j));
  }
  if (j1 > n) {
    const I pad = n > 0 ? __ldg(col + b + n - 1) : I{0};
    for (std::int64_t j = max(j0, n); j < j1; ++j) {
      const std::int64_t p = base + j * slots;
      out_col[p] = pad;
      out_val[p] = S{0};
    }
  }
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    hyb_extra_kernel(const I* __restrict__ ptr, std::int64_t rows, std::int64_t K,
                     std::int64_t* __restrict__ extra) {
  const std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (r > rows) return;
  extra[r] =
      r == rows ? 0 : max(std::int64_t{0}, static_cast<std::int64_t>(ptr[r + 1]) - ptr[r] - K);
}

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    hyb_coo_kernel(const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                   std::int64_t rows, std::int64_t K, const std::int64_t* __restrict__ coo_begin,
                   std::int64_t coo_nnz, I* __restrict__ out_row, I* __restrict__ out_col,
                   T* __restrict__ out_val) {
  for_each_in_tile(coo_begin, rows, coo_nnz, [&](std::int64_t d, std::int64_t r) {
    const std::int64_t k = static_cast<std::int64_t>(ptr[r]) + K + (d - coo_begin[r]);
    out_row[d] = static_cast<I>(r);
    out_col[d] = col[k];
    out_val[d] = val[k];
  });
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    expand_rows_kernel(const I* __restrict__ ptr, std::int64_t rows, std::int64_t nnz,
                       I* __restrict__ out) {
  for_each_in_tile(ptr, rows, nnz,
                   [&](std::int64_t k, std::int64_t i) { out[k] = static_cast<I>(i); });
}

__global__ void __launch_bounds__(kBlock)
    jad_counts_kernel(const std::uint64_t* __restrict__ keys, std::int64_t rows,
                      std::int64_t longest, std::int64_t* __restrict__ count) {
  const std::int64_t d = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (d > longest) return;
  // keys = longest − length, ascending: rows longer than d have key < longest − d.
  count[d] =
      d == longest ? 0 : lower_bound_index(keys, 0, rows, static_cast<std::uint64_t>(longest - d));
}

__global__ void __launch_bounds__(kBlock)
    jad_groups_kernel(const std::uint64_t* __restrict__ keys, std::int64_t rows,
                      std::int64_t longest, std::int64_t groups, std::int64_t* __restrict__ width,
                      std::int64_t* __restrict__ units) {
  const std::int64_t g = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (g > groups) return;
  if (g == groups) {
    units[g] = 0;
    return;
  }
  const std::int64_t w = longest - static_cast<std::int64_t>(keys[g * kSlotBlock]);
  width[g] = w;
  units[g] = group_units(min(kSlotBlock, rows - g * kSlotBlock), w);
}

}  // namespace

template <Index I>
void group_widths(const I* ptr, const I* order, std::int64_t rows, std::int64_t C,
                  std::int64_t groups, std::int64_t* width) {
  if (groups <= 0) return;
  check(cudaMemsetAsync(width, 0, static_cast<std::size_t>(groups) * sizeof(std::int64_t), kStream),
        "cudaMemsetAsync");
  if (rows <= 0) return;
  group_widths_kernel<<<blocks_for(rows, "group_widths"), kBlock, 0, kStream>>>(ptr, order, rows, C,
                                                                                width);
  check_launch("group_widths");
}

void group_sizes(std::int64_t* width, std::int64_t groups, std::int64_t C, std::int64_t total_slots,
                 std::int64_t round, std::int64_t* size, std::int64_t* units) {
  group_sizes_kernel<<<blocks_for(groups + 1, "group_sizes"), kBlock, 0, kStream>>>(
      width, groups, C, total_slots, round, size, units);
  check_launch("group_sizes");
}

template <Index I>
void slot_lengths(const I* ptr, const I* order, std::int64_t rows, std::int64_t cap, I* out) {
  if (rows <= 0) return;
  slot_lengths_kernel<<<blocks_for(rows, "slot_lengths"), kBlock, 0, kStream>>>(ptr, order, rows,
                                                                                cap, out);
  check_launch("slot_lengths");
}

template <Value T, Index I, class S>
void fill_groups(const GroupFill<I>& g, const I* ptr, const I* col, const T* val, I* out_col,
                 S* out_val) {
  if (g.units <= 0) return;
  fill_groups_kernel<T, I, S><<<blocks_for(g.units * 32, "fill_groups"), kBlock, 0, kStream>>>(
      g, ptr, col, val, out_col, out_val);
  check_launch("fill_groups");
}

template <Index I>
void hyb_extra(const I* ptr, std::int64_t rows, std::int64_t K, std::int64_t* extra) {
  hyb_extra_kernel<<<blocks_for(rows + 1, "hyb_extra"), kBlock, 0, kStream>>>(ptr, rows, K, extra);
  check_launch("hyb_extra");
}

template <Value T, Index I>
void hyb_coo(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t K,
             const std::int64_t* coo_begin, std::int64_t coo_nnz, I* out_row, I* out_col,
             T* out_val) {
  if (coo_nnz <= 0) return;
  hyb_coo_kernel<T, I><<<tiles_for(coo_nnz, "hyb_coo"), kBlock, 0, kStream>>>(
      ptr, col, val, rows, K, coo_begin, coo_nnz, out_row, out_col, out_val);
  check_launch("hyb_coo");
}

template <Index I>
void expand_rows(const I* ptr, std::int64_t rows, std::int64_t nnz, I* out) {
  if (nnz <= 0) return;
  expand_rows_kernel<I><<<tiles_for(nnz, "expand_rows"), kBlock, 0, kStream>>>(ptr, rows, nnz, out);
  check_launch("expand_rows");
}

void jad_counts(const std::uint64_t* sorted_keys, std::int64_t rows, std::int64_t longest,
                std::int64_t* count) {
  jad_counts_kernel<<<blocks_for(longest + 1, "jad_counts"), kBlock, 0, kStream>>>(
      sorted_keys, rows, longest, count);
  check_launch("jad_counts");
}

void jad_groups(const std::uint64_t* sorted_keys, std::int64_t rows, std::int64_t longest,
                std::int64_t groups, std::int64_t* width, std::int64_t* units) {
  jad_groups_kernel<<<blocks_for(groups + 1, "jad_groups"), kBlock, 0, kStream>>>(
      sorted_keys, rows, longest, groups, width, units);
  check_launch("jad_groups");
}

#define SPX_INST_I(I)                                                                         \
  template void group_widths<I>(const I*, const I*, std::int64_t, std::int64_t, std::int64_t, \
                                std::int64_t*);                                               \
  template void slot_lengths<I>(const I*, const I*, std::int64_t, std::int64_t, I*);          \
  template void hyb_extra<I>(const I*, std::int64_t, std::int64_t, std::int64_t*);            \
  template void expand_rows<I>(const I*, std::int64_t, std::int64_t, I*);
SPX_INST_I(std::int32_t)
SPX_INST_I(std::int64_t)
#undef SPX_INST_I

#define SPX_INST_S(T, I, S) \
  template void fill_groups<T, I, S>(const GroupFill<I>&, const I*, const I*, const T*, I*, S*);
#define SPX_INST(T, I)                                                                  \
  SPX_INST_S(T, I, T)                                                                   \
  template void hyb_coo<T, I>(const I*, const I*, const T*, std::int64_t, std::int64_t, \
                              const std::int64_t*, std::int64_t, I*, I*, T*);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
// SELL-LP's values: float for double, bfloat16 bits for float.
SPX_INST_S(double, std::int32_t, float)
SPX_INST_S(double, std::int64_t, float)
SPX_INST_S(float, std::int32_t, std::uint16_t)
SPX_INST_S(float, std::int64_t, std::uint16_t)
#undef SPX_INST
#undef SPX_INST_S

}  // namespace spx::cuda::conv
