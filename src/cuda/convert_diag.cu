// Device passes of the conversions to DIA, HDI and BCSR. Each entry gets a
// key (group, subkey): (hack, diagonal) for HDI — DIA is one hack of every
// row — and (block row, block column) for BCSR. Sorting the keys and keeping
// the distinct ones gives each group's diagonals or block columns in
// increasing order, as the host's per-group sort + unique does; only the
// keys of the entries that start a run along the key's direction in their
// group are sorted (run_keys: a stencil's hack of 32 rows gives a
// diagonal's key once, not 32 times), which holds every distinct key; each entry is
// then written at its place, found by a binary search among its group's
// keys. With one group (DIA, SYM_DIA's triangle, DIA-LP, HDI with a single
// hack) the sort is skipped where the span of the diagonals allows: one bit
// per diagonal, set by the entries, listed in order. The explicit zeros are the entries whose value
// compares equal to 0, in CSR order (= (row, column) order), as on the host.
//
// Entries are visited in tiles (convert_passes.cuh): a block takes kTile
// consecutive entries, finds the rows of its first and last entry in
// row_ptr, and each thread takes kItems consecutive entries, searching the
// first one's row between the two and stepping to the next ones'.
#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>
#include <cuda/atomic>

#include <algorithm>
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"

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
  /// The key of (i, j) in group g = group(i).
  __device__ __forceinline__ std::uint64_t key_in(std::uint64_t g, std::int64_t i,
                                                  std::int64_t j) const {
    return (sub_bits >= 64 ? 0 : g << sub_bits) | sub(i, j);
  }
  __device__ __forceinline__ std::uint64_t key(std::int64_t i, std::int64_t j) const {
    return key_in(group(i), i, j);
  }
};

/// Whether row i − 1 stores (i − 1, j − 1), for entry k = (i, j), i, j > 0:
/// looked at in the same place of the row above first (rows of the same
/// shape), then searched.
template <class I>
__device__ __forceinline__ bool above_on_diagonal(const I* __restrict__ ptr,
                                                  const I* __restrict__ col, std::int64_t k,
                                                  std::int64_t i, std::int64_t j) {
  const std::int64_t above = ptr[i - 1], begin = ptr[i];
  const std::int64_t same = above + (k - begin);
  if (same < begin && static_cast<std::int64_t>(col[same]) == j - 1) return true;
  const std::int64_t p = lower_bound_index(col, above, begin, j - 1);
  return p < begin && static_cast<std::int64_t>(col[p]) == j - 1;
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    entry_keys_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t nnz,
                      EntryKey ek, std::uint64_t* __restrict__ keys) {
  for_each_in_tile(ptr, ek.rows, nnz,
                   [&](std::int64_t k, std::int64_t i) { keys[k] = ek.key(i, col[k]); });
}

/// Whether entry k = (i, j) of A is the first of its key's entries in its
/// group's rows along the key's direction, so that the keys of such
/// entries are all the distinct keys; `first`: row i is its group's first.
/// Diagonal: no (i − 1, j − 1) stored in the same group (the run along the
/// diagonal above it: the first of a run carries the key). Block (b = H):
/// no earlier entry of row i in j's block column, and no entry of row i − 1
/// of the same block row in it.
template <class I>
__device__ __forceinline__ bool starts_key(const I* __restrict__ ptr, const I* __restrict__ col,
                                           const EntryKey& ek, std::int64_t k, std::int64_t i,
                                           std::int64_t j, bool first) {
  if (ek.mode == KeyMode::Diagonal) return first || j == 0 || !above_on_diagonal(ptr, col, k, i, j);
  const std::int64_t begin = ptr[i];
  const std::int64_t b0 = j / ek.H * ek.H;  // the block column's first column
  if (k > begin && static_cast<std::int64_t>(col[k - 1]) >= b0) return false;
  if (first) return true;
  const std::int64_t p = lower_bound_index(col, std::int64_t{ptr[i - 1]}, begin, b0);
  return p == begin || static_cast<std::int64_t>(col[p]) >= b0 + ek.H;
}

/// The keys of the entries that start one (starts_key), appended to keys in
/// no particular order (they are sorted next): a thread keeps its up to
/// kItems keys, a block scan places them, and one atomic per block reserves
/// the block's run of the output.
template <class I>
__global__ void __launch_bounds__(kBlock)
    run_keys_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t nnz,
                    EntryKey ek, unsigned long long* __restrict__ count,
                    std::uint64_t* __restrict__ keys) {
  using Scan = cub::BlockScan<int, kBlock>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ unsigned long long base;
  std::uint64_t mine[kItems];
  int n = 0;
  for_each_in_tile(ptr, ek.rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t j = col[k];
    const std::uint64_t g = ek.group(i);  // one division for the test and the key
    if (starts_key(ptr, col, ek, k, i, j, i == static_cast<std::int64_t>(g) * ek.H))
      mine[n++] = ek.key_in(g, i, j);
  });
  int offset = 0, total = 0;
  Scan(scan).ExclusiveSum(n, offset, total);
  if (threadIdx.x == 0 && total > 0)
    base = atomicAdd(count, static_cast<unsigned long long>(total));
  __syncthreads();
  for (int q = 0; q < n; ++q)
    keys[base + static_cast<unsigned long long>(offset + q)] = mine[q];
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

/// Sets bit d of the global bits (one word, relaxed: only bits are added,
/// and the kernel's end orders them before any reader).
__device__ __forceinline__ void set_bit(std::uint32_t* bits, std::int64_t d) {
  const std::uint32_t bit = 1u << (d & 31);
  ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device> word(bits[d >> 5]);
  if ((word.load(::cuda::std::memory_order_relaxed) & bit) == 0)
    word.fetch_or(bit, ::cuda::std::memory_order_relaxed);
}

/// The entries in tiles. Entry (i, j) sets its diagonal's bit only
/// when the row above holds no (i − 1, j − 1): otherwise that entry, or the
/// first of the run of entries along the diagonal above it, sets the bit.
/// Only the first entry of each run of a diagonal writes, so a stencil's few
/// diagonals cost a few thousand updates in all, not one per entry or warp.
/// The row above is looked at in the same place first (rows of the same
/// shape), then searched. `lower`: the entries above the diagonal are left
/// out (their runs' first entries too: the entry above one on or below the
/// diagonal is on or below it).
/// (Before: a warp per 2048 entries caching the first 64 diagonals it met,
/// 0.74 ms for fem-b6-n250's 20 M entries and 99 diagonals on the H200, 12
/// products; and before that a block-wide set in shared memory, both
/// contending on the few words of a stencil's diagonals.)
template <class I>
__global__ void __launch_bounds__(kBlock)
    mark_diagonals_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                          std::int64_t nnz, bool lower, std::uint32_t* bits) {
  for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t j = col[k];
    if (lower && j > i) return;
    if (i > 0 && j > 0 && above_on_diagonal(ptr, col, k, i, j)) return;
    set_bit(bits, j - i + rows - 1);
  });
}

/// DIA's values, a block per R rows (R a power of two): the block's entries,
/// read in order by V lanes a row (V from the mean row length), are placed in a stage in shared
/// memory of its rows × the nd diagonals (zeros elsewhere; a diagonal's R values kept R + 1 apart
/// so that a row's entries fall in different banks), then every diagonal's R values are written in
/// one run. Diagonal d's index among the marked ones is pos[d / 32] + the set bits below it in its
/// word. Every value of the nd × rows is written, so the output needs no zeroing, and both the
/// reads and the writes are coalesced, where scattering entry by entry wrote 8 bytes per 32-byte
/// sector (0.55 ms for fem-b6-n250 f64 on the H200, 9 products).
template <class T, class I, class S>
__global__ void __launch_bounds__(kBlock)
    dia_fill_kernel(const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                    std::int64_t rows, const std::uint32_t* __restrict__ bits,
                    const std::int64_t* __restrict__ pos, std::int64_t nd, int log_r, int log_v,
                    bool lower, S* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char stage_bytes[];
  S* stage = reinterpret_cast<S*>(stage_bytes);
  const std::int64_t R = std::int64_t{1} << log_r;
  const std::int64_t r0 = blockIdx.x * R;
  const std::int64_t rn = min(R, rows - r0);
  const std::int64_t slots = nd * (R + 1);
  for (std::int64_t q = threadIdx.x; q < slots; q += kBlock)
    stage[q] = S{};
  __syncthreads();
  // V = 2^log_v lanes a row, reading its entries in order: no search.
  const int V = 1 << log_v;
  const int lane = static_cast<int>(threadIdx.x) & (V - 1);
  for (std::int64_t r = threadIdx.x >> log_v; r < rn; r += kBlock >> log_v) {
    const std::int64_t i = r0 + r, e = ptr[i + 1];
    for (std::int64_t k = ptr[i] + lane; k < e; k += V) {
      const std::int64_t j = col[k];
      if (lower && j > i) continue;
      const std::int64_t d = j - i + rows - 1;
      const std::uint32_t below = bits[d >> 5] & ((1u << (d & 31)) - 1u);
      const std::int64_t t = pos[d >> 5] + __popc(below);
      stage[t * (R + 1) + r] = stored_as<S>(val[k]);
    }
  }
  __syncthreads();
  for (std::int64_t q = threadIdx.x; q < nd * R; q += kBlock) {
    const std::int64_t t = q >> log_r, r = q & (R - 1);
    if (r < rn) out[t * rows + r0 + r] = stage[t * (R + 1) + r];
  }
}

/// The stage of dia_fill_kernel fits this many bytes (the default limit of
/// a block's dynamic shared memory).
constexpr std::int64_t kStageBytes = 48 * 1024;
/// Rows per block of dia_fill_kernel: at most 2^7, at least 2^3.
constexpr int kFillLogRowsMax = 7, kFillLogRowsMin = 3;

__global__ void __launch_bounds__(kBlock)
    bit_counts_kernel(const std::uint32_t* __restrict__ bits, std::int64_t words,
                      std::int64_t* __restrict__ count) {
  const std::int64_t w = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (w <= words) count[w] = w < words ? __popc(bits[w]) : 0;
}

__global__ void __launch_bounds__(kBlock)
    bit_positions_kernel(const std::uint32_t* __restrict__ bits, std::int64_t words,
                         const std::int64_t* __restrict__ pos, std::uint64_t* __restrict__ out) {
  const std::int64_t w = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (w >= words) return;
  std::int64_t p = pos[w];
  for (std::uint32_t b = bits[w]; b != 0; b &= b - 1)
    out[p++] = static_cast<std::uint64_t>(32 * w + __ffs(static_cast<int>(b)) - 1);
}

template <class T>
__global__ void __launch_bounds__(kBlock)
    count_zeros_kernel(const T* __restrict__ val, std::int64_t n,
                       unsigned long long* __restrict__ count) {
  unsigned long long c = 0;
  for (std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; k < n;
       k += std::int64_t{gridDim.x} * kBlock)
    c += val[k] == T{0} ? 1 : 0;
  c = across_groups_sum(c);
  if ((threadIdx.x & (kWarpSize - 1)) == 0 && c > 0) atomicAdd(count, c);
}

template <class T, class I, class S>
__global__ void __launch_bounds__(kBlock)
    scatter_values_kernel(const I* __restrict__ ptr, const I* __restrict__ col,
                          const T* __restrict__ val, std::int64_t nnz, EntryKey ek,
                          const std::uint64_t* __restrict__ uniq,
                          const std::int64_t* __restrict__ start, S* __restrict__ out) {
  for_each_in_tile(ptr, ek.rows, nnz, [&](std::int64_t k, std::int64_t i) {
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
    out[p] = stored_as<S>(val[k]);
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
  for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t p = pos[k];
    if (pos[k + 1] == p) return;
    out_row[p] = static_cast<I>(i);
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

template <Index I>
std::int64_t run_keys(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz, KeyMode mode,
                      std::int64_t H, int sub_bits, std::uint64_t* keys) {
  if (nnz <= 0) return 0;
  StreamScratch count(sizeof(unsigned long long), kStream);
  check(cudaMemsetAsync(count.as<void>(), 0, sizeof(unsigned long long), kStream),
        "cudaMemsetAsync (run keys)");
  run_keys_kernel<I><<<tiles_for(nnz, "run_keys"), kBlock, 0, kStream>>>(
      ptr, col, nnz, EntryKey{mode, rows, H, sub_bits}, count.as<unsigned long long>(), keys);
  check_launch("run_keys");
  return static_cast<std::int64_t>(read_back(count.as<std::uint64_t>()));
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

template <Index I>
void mark_diagonals(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                    std::int64_t words, std::uint32_t* bits, bool lower) {
  if (words > 0)
    check(
        cudaMemsetAsync(bits, 0, static_cast<std::size_t>(words) * sizeof(std::uint32_t), kStream),
        "cudaMemsetAsync (diagonal bits)");
  if (nnz <= 0) return;
  mark_diagonals_kernel<I>
      <<<tiles_for(nnz, "mark_diagonals"), kBlock, 0, kStream>>>(ptr, col, rows, nnz, lower, bits);
  check_launch("mark_diagonals");
}

template <Index I>
std::int64_t count_diagonals(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                             std::int64_t words, std::uint32_t* bits, std::int64_t* pos,
                             bool lower) {
  mark_diagonals(ptr, col, rows, nnz, words, bits, lower);
  bit_counts(bits, words, pos);
  exclusive_sum(pos, words + 1);
  return read_back(pos + words);
}

int dia_fill_log_rows(std::int64_t nd, std::size_t value_bytes) {
  for (int lr = kFillLogRowsMax; lr >= kFillLogRowsMin; --lr)
    if (nd <= kStageBytes / static_cast<std::int64_t>(value_bytes) / ((std::int64_t{1} << lr) + 1))
      return lr;
  return -1;
}

template <Value T, Index I, class S>
void dia_fill(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
              const std::uint32_t* bits, const std::int64_t* pos, std::int64_t nd, int log_rows,
              bool lower, S* out) {
  if (rows <= 0 || nd <= 0) return;
  const std::int64_t R = std::int64_t{1} << log_rows;
  const auto stage = static_cast<std::size_t>(nd * (R + 1)) * sizeof(S);
  // adaptive_width: a power of two, 1..32.
  const int log_v = bit_width(static_cast<std::uint64_t>(
                        adaptive_width(static_cast<double>(nnz) / static_cast<double>(rows)))) -
                    1;
  dia_fill_kernel<T, I, S>
      <<<grid_size((rows + R - 1) / R, 1, "dia_fill"), kBlock, stage, kStream>>>(
          ptr, col, val, rows, bits, pos, nd, log_rows, log_v, lower, out);
  check_launch("dia_fill");
}

void bit_counts(const std::uint32_t* bits, std::int64_t words, std::int64_t* count) {
  bit_counts_kernel<<<blocks_for(words + 1, "bit_counts"), kBlock, 0, kStream>>>(bits, words,
                                                                                 count);
  check_launch("bit_counts");
}

void bit_positions(const std::uint32_t* bits, std::int64_t words, const std::int64_t* pos,
                   std::uint64_t* out) {
  if (words <= 0) return;
  bit_positions_kernel<<<blocks_for(words, "bit_positions"), kBlock, 0, kStream>>>(bits, words, pos,
                                                                                   out);
  check_launch("bit_positions");
}

template <Value T, Index I, class S>
void scatter_values(const I* ptr, const I* col, const T* val, std::int64_t rows, std::int64_t nnz,
                    KeyMode mode, std::int64_t H, int sub_bits, const std::uint64_t* uniq,
                    const std::int64_t* start, S* out) {
  if (nnz <= 0) return;
  scatter_values_kernel<T, I, S><<<tiles_for(nnz, "scatter_values"), kBlock, 0, kStream>>>(
      ptr, col, val, nnz, EntryKey{mode, rows, H, sub_bits}, uniq, start, out);
  check_launch("scatter_values");
}

template <Value T>
std::int64_t count_zeros(const T* val, std::int64_t nnz) {
  if (nnz <= 0) return 0;
  StreamScratch out(sizeof(unsigned long long), kStream);
  check(cudaMemsetAsync(out.as<void>(), 0, sizeof(unsigned long long), kStream),
        "cudaMemsetAsync (zero count)");
  const unsigned grid = std::min<unsigned>(grid_size(nnz, kBlock, "count_zeros"),
                                           static_cast<unsigned>(sm_count()) * 8u);
  count_zeros_kernel<T><<<grid, kBlock, 0, kStream>>>(val, nnz, out.as<unsigned long long>());
  check_launch("count_zeros");
  return static_cast<std::int64_t>(read_back(out.as<std::uint64_t>()));
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

#define SPX_INST_I(I)                                                                           \
  template void entry_keys<I>(const I*, const I*, std::int64_t, std::int64_t, KeyMode,          \
                              std::int64_t, int, std::uint64_t*);                               \
  template std::int64_t run_keys<I>(const I*, const I*, std::int64_t, std::int64_t, KeyMode,    \
                                    std::int64_t, int, std::uint64_t*);                         \
  template void subkeys<I>(const std::uint64_t*, std::int64_t, int, std::int64_t, I*);          \
  template void scatter_zeros<I>(const I*, const I*, std::int64_t, std::int64_t,                \
                                 const std::int64_t*, I*, I*);                                  \
  template std::int64_t count_diagonals<I>(const I*, const I*, std::int64_t, std::int64_t,      \
                                           std::int64_t, std::uint32_t*, std::int64_t*, bool);  \
  template void mark_diagonals<I>(const I*, const I*, std::int64_t, std::int64_t, std::int64_t, \
                                  std::uint32_t*, bool);
SPX_INST_I(std::int32_t)
SPX_INST_I(std::int64_t)
#undef SPX_INST_I

template void zero_flags<float>(const float*, std::int64_t, std::int64_t*);
template void zero_flags<double>(const double*, std::int64_t, std::int64_t*);
template std::int64_t count_zeros<float>(const float*, std::int64_t);
template std::int64_t count_zeros<double>(const double*, std::int64_t);

// S = T for every format; DIA-LP's storage types (float for double, bfloat16
// bits for float) for DIA-LP's values.
#define SPX_INST_S(T, I, S)                                                                       \
  template void scatter_values<T, I, S>(const I*, const I*, const T*, std::int64_t, std::int64_t, \
                                        KeyMode, std::int64_t, int, const std::uint64_t*,         \
                                        const std::int64_t*, S*);                                 \
  template void dia_fill<T, I, S>(const I*, const I*, const T*, std::int64_t, std::int64_t,       \
                                  const std::uint32_t*, const std::int64_t*, std::int64_t, int,   \
                                  bool, S*);
#define SPX_INST(T, I) SPX_INST_S(T, I, T)
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
SPX_INST_S(double, std::int32_t, float)
SPX_INST_S(double, std::int64_t, float)
SPX_INST_S(float, std::int32_t, std::uint16_t)
SPX_INST_S(float, std::int64_t, std::uint16_t)
#undef SPX_INST
#undef SPX_INST_S

}  // namespace spx::cuda::conv
