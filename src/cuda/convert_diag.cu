// Device passes of the conversions to DIA, HDI and BCSR. Each entry gets a
// key (group, subkey): (hack, diagonal) for HDI — DIA is one hack of every
// row — and (block row, block column) for BCSR. Sorting the keys and keeping
// the distinct ones gives each group's diagonals or block columns in
// increasing order, as the host's per-group sort + unique does; each entry is
// then written at its place, found by a binary search among its group's
// keys. The explicit zeros are the entries whose value compares equal to 0,
// in CSR order (= (row, column) order), as on the host.
//
// Entries are visited in tiles (convert_passes.cuh): a block takes kTile
// consecutive entries, finds the rows of its first and last entry in
// row_ptr, and each thread searches its entry's row between the two.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"

namespace spx::cuda::conv {
namespace {

struct EntryKey {
  KeyMode mode;
  std::int64_t rows, H;
  int sub_bits;

  __device__ __forceinline__ std::uint64_t group(std::int64_t i) const {
    return static_cast<std::uint64_t>(i / H);
  }
  __device__ __forceinline__ std::uint64_t sub(std::int64_t i, std::int64_t j) const {
    return static_cast<std::uint64_t>(mode == KeyMode::Diagonal ? j - i + rows - 1 : j / H);
  }
  __device__ __forceinline__ std::uint64_t key(std::int64_t i, std::int64_t j) const {
    return (sub_bits >= 64 ? 0 : group(i) << sub_bits) | sub(i, j);
  }
};

template <class I>
__global__ void __launch_bounds__(kBlock)
    entry_keys_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t nnz,
                      EntryKey ek, std::uint64_t* __restrict__ keys) {
  for_each_in_tile(ptr, ek.rows, nnz, [&](std::int64_t k, std::int64_t lo, std::int64_t hi) {
    const std::int64_t i = last_le(ptr, lo, hi, k);
    keys[k] = ek.key(i, col[k]);
  });
}

__global__ void __launch_bounds__(kBlock)
    head_flags_kernel(const std::uint64_t* __restrict__ keys, std::int64_t n,
                      std::int64_t* __restrict__ flags) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k > n) return;
  flags[k] = k < n && (k == 0 || keys[k] != keys[k - 1]) ? 1 : 0;
}

__global__ void __launch_bounds__(kBlock)
    compact_kernel(const std::uint64_t* __restrict__ keys, std::int64_t n,
                   const std::int64_t* __restrict__ pos, std::uint64_t* __restrict__ out) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k < n && pos[k + 1] != pos[k]) out[pos[k]] = keys[k];
}

__global__ void __launch_bounds__(kBlock)
    group_starts_kernel(const std::uint64_t* __restrict__ uniq, std::int64_t n, std::int64_t groups,
                        int sub_bits, std::int64_t* __restrict__ start) {
  const std::int64_t g = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (g > groups) return;
  // Keys of group g are >= g << sub_bits; the end marker (g = groups) may not
  // be representable, and is n anyway.
  start[g] = g == groups
                 ? n
                 : lower_bound_index(
                       uniq, 0, n, sub_bits >= 64 ? 0 : static_cast<std::uint64_t>(g) << sub_bits);
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    subkeys_kernel(const std::uint64_t* __restrict__ uniq, std::int64_t n, std::uint64_t mask,
                   std::int64_t shift, I* __restrict__ out) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k < n) out[k] = static_cast<I>(static_cast<std::int64_t>(uniq[k] & mask) + shift);
}

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    scatter_values_kernel(const I* __restrict__ ptr, const I* __restrict__ col,
                          const T* __restrict__ val, std::int64_t nnz, EntryKey ek,
                          const std::uint64_t* __restrict__ uniq,
                          const std::int64_t* __restrict__ start, T* __restrict__ out) {
  for_each_in_tile(ptr, ek.rows, nnz, [&](std::int64_t k, std::int64_t lo, std::int64_t hi) {
    const std::int64_t i = last_le(ptr, lo, hi, k);
    const std::int64_t j = col[k];
    const std::int64_t g = i / ek.H, r = i - g * ek.H;
    const std::int64_t gb = start[g];
    const std::int64_t d = lower_bound_index(uniq, gb, start[g + 1], ek.key(i, j)) - gb;
    std::int64_t p;
    if (ek.mode == KeyMode::Diagonal) {
      const std::int64_t hr = min(ek.H, ek.rows - g * ek.H);
      p = ek.H * gb + d * hr + r;
    } else {
      p = (gb + d) * ek.H * ek.H + (j % ek.H) * ek.H + r;
    }
    out[p] = val[k];
  });
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    zero_flags_kernel(const T* __restrict__ val, std::int64_t nnz,
                      std::int64_t* __restrict__ flags) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k > nnz) return;
  flags[k] = k < nnz && val[k] == T{0} ? 1 : 0;
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    scatter_zeros_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                         std::int64_t nnz, const std::int64_t* __restrict__ pos,
                         I* __restrict__ out_row, I* __restrict__ out_col) {
  for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t lo, std::int64_t hi) {
    const std::int64_t p = pos[k];
    if (pos[k + 1] == p) return;
    out_row[p] = static_cast<I>(last_le(ptr, lo, hi, k));
    out_col[p] = col[k];
  });
}

}  // namespace

template <Index I>
void entry_keys(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz, KeyMode mode,
                std::int64_t H, int sub_bits, std::uint64_t* keys) {
  if (nnz <= 0) return;
  entry_keys_kernel<I><<<tiles_for(nnz, "entry_keys"), kBlock, 0, kStream>>>(
      ptr, col, nnz, EntryKey{mode, rows, H, sub_bits}, keys);
  check_launch("entry_keys");
}

std::int64_t unique_keys(const std::uint64_t* keys, std::int64_t n, std::int64_t* flags,
                         std::uint64_t* out) {
  if (n <= 0) return 0;
  head_flags_kernel<<<blocks_for(n + 1, "unique_keys"), kBlock, 0, kStream>>>(keys, n, flags);
  check_launch("unique_keys (flags)");
  exclusive_sum(flags, n + 1);
  compact_kernel<<<blocks_for(n, "unique_keys"), kBlock, 0, kStream>>>(keys, n, flags, out);
  check_launch("unique_keys (compact)");
  return read_back(flags + n);
}

void group_starts(const std::uint64_t* uniq, std::int64_t n, std::int64_t groups, int sub_bits,
                  std::int64_t* start) {
  group_starts_kernel<<<blocks_for(groups + 1, "group_starts"), kBlock, 0, kStream>>>(
      uniq, n, groups, sub_bits, start);
  check_launch("group_starts");
}

template <Index I>
void subkeys(const std::uint64_t* uniq, std::int64_t n, int sub_bits, std::int64_t shift, I* out) {
  if (n <= 0) return;
  const std::uint64_t mask =
      sub_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << sub_bits) - 1;
  subkeys_kernel<I><<<blocks_for(n, "subkeys"), kBlock, 0, kStream>>>(uniq, n, mask, shift, out);
  check_launch("subkeys");
}

template <Value T, Index I>
void scatter_values(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
                    KeyMode mode, std::int64_t H, int sub_bits, const std::uint64_t* uniq,
                    const std::int64_t* start, T* out) {
  if (nnz <= 0) return;
  scatter_values_kernel<T, I><<<tiles_for(nnz, "scatter_values"), kBlock, 0, kStream>>>(
      ptr, col, val, nnz, EntryKey{mode, rows, H, sub_bits}, uniq, start, out);
  check_launch("scatter_values");
}

template <Value T>
void zero_flags(const T* val, std::int64_t nnz, std::int64_t* flags) {
  zero_flags_kernel<T><<<blocks_for(nnz + 1, "zero_flags"), kBlock, 0, kStream>>>(val, nnz, flags);
  check_launch("zero_flags");
}

template <Index I>
void scatter_zeros(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                   const std::int64_t* pos, I* out_row, I* out_col) {
  if (nnz <= 0) return;
  scatter_zeros_kernel<I><<<tiles_for(nnz, "scatter_zeros"), kBlock, 0, kStream>>>(
      ptr, col, rows, nnz, pos, out_row, out_col);
  check_launch("scatter_zeros");
}

#define SPX_INST_I(I)                                                                  \
  template void entry_keys<I>(const I*, const I*, std::int64_t, std::int64_t, KeyMode, \
                              std::int64_t, int, std::uint64_t*);                      \
  template void subkeys<I>(const std::uint64_t*, std::int64_t, int, std::int64_t, I*); \
  template void scatter_zeros<I>(const I*, const I*, std::int64_t, std::int64_t,       \
                                 const std::int64_t*, I*, I*);
SPX_INST_I(std::int32_t)
SPX_INST_I(std::int64_t)
#undef SPX_INST_I

template void zero_flags<float>(const float*, std::int64_t, std::int64_t*);
template void zero_flags<double>(const double*, std::int64_t, std::int64_t*);

#define SPX_INST(T, I)                                                                         \
  template void scatter_values<T, I>(const I*, const I*, const T*, std::int64_t, std::int64_t, \
                                     KeyMode, std::int64_t, int, const std::uint64_t*,         \
                                     const std::int64_t*, T*);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda::conv
