// The column statistics of a device CSR (csr_columns.hpp), computed on the GPU
// without copying the matrix to the host, equal to the host's numbers:
//
//   diagonals       distinct column − row. Where the host uses a map (m + n
//                   slots within nnz + m + 64 Ki, core/stats.cpp), a bit per
//                   diagonal set by DIA's conversion pass (conv::mark_diagonals:
//                   only the first entry of each run along a diagonal sets
//                   it; a byte stored by every entry made the few bytes of a
//                   banded matrix's diagonals a hot spot), then summed; otherwise
//                   (few entries for the shape) the entries' diagonals radix
//                   sorted and their runs counted: O(nnz) memory, never O(n).
//   blocks (b ≤ 8)  an entry is the first of its aligned b×b block (in CSR
//                   order) when the previous entry of its row lies in another
//                   block column and no row above it in its block row holds a
//                   column of the block (a binary search in each such row,
//                   nearest first, stopping at a hit). All seven b in one pass,
//                   one search per row above shared by every b.
//   scattered       the numerator of scatter_fraction: an entry starting a new
//                   line of x (kScatterLine columns) in its row, whose line the
//                   previous row does not touch (a binary search in that row).
//   bandwidths      max(row − column) and max(column − row), in the same pass.
//   packed entries  SELL-pack with σ = 1: a thread per slice of C rows, its
//                   width and its columns' span.
//   first, last     each row's first and last column (SELL-pack with σ > 1,
//                   whose rows the host orders), one thread per row.
//   hack diagonals  for hacks of at most kSearchRows rows, the search above
//                   per entry (its diagonal in the rows above it in its hack:
//                   for banded matrices about one search per entry, at most
//                   H − 1, and no scratch memory); for taller hacks the
//                   entries' (hack, diagonal) pairs are counted after a stable
//                   radix sort of the diagonals carrying the rows (entries come
//                   in row order, so equal diagonals stay in hack order), which
//                   costs O(nnz) whatever H is and never needs the keys of
//                   (hack, diagonal) to fit 64 bits.
//   blocks (any b)  the same choice: the search for b ≤ kSearchRows, the sort of
//                   the block columns carrying the rows beyond.
//   symmetry        an entry per thread: one above the diagonal looks up its
//                   mirror (a binary search in its column's row), and the
//                   entries above, below and on the diagonal are counted; the
//                   matrix is symmetric when every entry above has its equal
//                   mirror and as many lie below. An entry that refutes it is
//                   described by a one-thread kernel (its row by a binary
//                   search in row_ptr, its mirror by one in its column's row)
//                   and its values read back one by one, so the refusal names
//                   it with the host's wording. (The row-per-lanes test of the
//                   SYM_CSR conversion took 0.9 s on a matrix with four dense
//                   rows of 2M rows, H100.)
//
// Passes over entries use the conversions' tiles (convert_passes.cuh); counts
// are reduced per block and added with one atomic per block and counter.
// Kernels are templated on the index type only. Everything runs on the
// default stream; the results come back with small synchronous copies.
#include "cuda/csr_columns.hpp"

#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "spx/analysis.hpp"
#include "spx/core/error.hpp"
#include "spx/formats/sell_pack.hpp"

// From core/convert_checks.hpp (defined in core/convert_checks.cpp), which
// nvcc cannot include (fmt's compile-time format strings): the refusals of the
// symmetric formats, so that the device's read as the host's.
namespace spx::detail {
void check_sym_square(std::int64_t rows, std::int64_t cols, std::string_view format);
template <Value T>
[[noreturn]] void throw_not_symmetric(std::int64_t i, std::int64_t j, T aij, const T* aji,
                                      std::string_view format);
}  // namespace spx::detail

namespace spx::cuda {
namespace {

using conv::kStream;

/// Rows above an entry searched at most per entry: hacks of up to this many
/// rows and blocks up to this size are counted by searches, larger ones by a
/// sort.
constexpr std::int64_t kSearchRows = 32;
constexpr std::int64_t kLine = MatrixStats::kScatterLine;
/// Counters of the column-count pass: blocks for b = 2..8, then scattered.
constexpr int kBlockSizes = 7;
constexpr int kScattered = kBlockSizes;
constexpr int kPassCounts = kBlockSizes + 1;

/// Sets n counters to zero.
void zero_counters(unsigned long long* c, int n, const char* what) {
  check(cudaMemsetAsync(c, 0, sizeof(unsigned long long) * n, kStream), what);
}

/// Reads n counters back (synchronous).
void read_counters(const unsigned long long* d, int n, unsigned long long* h, const char* what) {
  check(cudaMemcpy(h, d, sizeof(unsigned long long) * n, cudaMemcpyDeviceToHost), what);
}

template <Value T, Index I>
void require_device(const Csr<T, I>& A, const char* function) {
  if (A.space() != Space::Device)
    throw InvalidInput(std::string("spx::cuda::") + function +
                       ": the CSR must be in device memory, it is in " +
                       std::string(to_string(A.space())) + " memory");
}

// ---- device helpers ---------------------------------------------------------------

/// Whether row r holds a column in [lo, hi).
template <class I>
__device__ __forceinline__ bool row_holds(const I* __restrict__ ptr, const I* __restrict__ col,
                                          std::int64_t r, std::int64_t lo, std::int64_t hi) {
  const std::int64_t b = ptr[r], e = ptr[r + 1];
  if (b == e || static_cast<std::int64_t>(col[e - 1]) < lo ||
      static_cast<std::int64_t>(col[b]) >= hi)
    return false;
  const std::int64_t p = lower_bound_index(col, b, e, std::int64_t{lo});
  return p < e && static_cast<std::int64_t>(col[p]) < hi;
}

/// Adds this thread's N counters, summed over the block, to out[0, N) with
/// one atomic per counter (every thread of the block must call it).
template <int N>
__device__ __forceinline__ void add_block_counts(unsigned long long (&v)[N],
                                                 unsigned long long* __restrict__ out) {
  constexpr int kWarps = kBlock / kWarpSize;
  __shared__ unsigned long long part[kWarps][N];
#pragma unroll
  for (int c = 0; c < N; ++c)
    v[c] = across_groups_sum(v[c]);
  if (threadIdx.x % kWarpSize == 0)
#pragma unroll
    for (int c = 0; c < N; ++c)
      part[threadIdx.x / kWarpSize][c] = v[c];
  __syncthreads();
  if (threadIdx.x < N) {
    unsigned long long sum = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      sum += part[w][threadIdx.x];
    if (sum != 0) atomicAdd(out + threadIdx.x, sum);
  }
}

// ---- kernels ----------------------------------------------------------------------

/// One pass over the entries: the blocks for b = 2..8 and the scattered
/// entries (counts[0, kPassCounts)), and the two bandwidths (after them).
/// Narrow: rows and columns below 2³², so that the block columns and rows
/// (divisions by the constants 2..8) are computed in 32 bits, where a 64-bit
/// division by a constant costs several times the instructions (ncu: the
/// pass was bound by issue, 74% SM throughput, 2.2-2.8 ms on the large
/// members of 20 M entries, H200, session 24).
template <bool Narrow, class I>
__global__ void __launch_bounds__(kBlock)
    column_counts_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                         std::int64_t nnz, unsigned long long* __restrict__ counts) {
  unsigned long long c[kPassCounts] = {};
  unsigned long long band[2] = {0, 0};  // max(i − j, 0), max(j − i, 0)
  conv::for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t j = col[k];
    const std::int64_t prev = k > static_cast<std::int64_t>(ptr[i]) ? col[k - 1] : -1;
    if (i > j) band[0] = max(band[0], static_cast<unsigned long long>(i - j));
    if (j > i) band[1] = max(band[1], static_cast<unsigned long long>(j - i));

    // Scattered: a new line of x in the row, which the previous row misses.
    const std::int64_t line = j / kLine;
    if (prev < 0 || prev / kLine != line)
      c[kScattered] += i == 0 || !row_holds(ptr, col, i - 1, line * kLine, line * kLine + kLine);

    // Blocks: need bit b − 2 while the entry may be the first of its b×b block.
    std::int64_t start[kBlockSizes];  // the block's first column
    int in_block[kBlockSizes];        // the entry's row within its block row
    unsigned need = 0;
#pragma unroll
    for (int b = 2; b <= 8; ++b) {
      if constexpr (Narrow) {
        const auto j32 = static_cast<std::uint32_t>(j), i32 = static_cast<std::uint32_t>(i);
        start[b - 2] = static_cast<std::int64_t>(j32 / static_cast<std::uint32_t>(b) *
                                                 static_cast<std::uint32_t>(b));
        in_block[b - 2] = static_cast<int>(i32 % static_cast<std::uint32_t>(b));
      } else {
        start[b - 2] = j / b * b;
        in_block[b - 2] = static_cast<int>(i % b);
      }
      if (prev < start[b - 2]) need |= 1u << (b - 2);  // prev = -1 without one
    }
    for (int dr = 1; dr < 8 && need != 0; ++dr) {
      // The b for which row i − dr lies in the entry's block row.
      unsigned active = 0;
      std::int64_t lo_col = LLONG_MAX, hi_col = -1;
#pragma unroll
      for (int b = 2; b <= 8; ++b)
        if ((need >> (b - 2) & 1u) != 0 && in_block[b - 2] >= dr) {
          active |= 1u << (b - 2);
          lo_col = min(lo_col, start[b - 2]);
          hi_col = max(hi_col, start[b - 2] + b);
        }
      if (active == 0) continue;
      const std::int64_t r = i - dr;
      const std::int64_t rb = ptr[r], re = ptr[r + 1];
      if (rb == re || static_cast<std::int64_t>(col[re - 1]) < lo_col ||
          static_cast<std::int64_t>(col[rb]) >= hi_col)
        continue;
      // At most hi_col − lo_col <= 15 columns to look at (distinct in a row).
      for (std::int64_t p = lower_bound_index(col, rb, re, std::int64_t{lo_col}); p < re; ++p) {
        const std::int64_t x = col[p];
        if (x >= hi_col) break;
#pragma unroll
        for (int b = 2; b <= 8; ++b)
          if ((active >> (b - 2) & 1u) != 0 && x >= start[b - 2] && x < start[b - 2] + b)
            need &= ~(1u << (b - 2));
      }
    }
#pragma unroll
    for (int b = 2; b <= 8; ++b)
      c[b - 2] += need >> (b - 2) & 1u;
  });
  add_block_counts(c, counts);
#pragma unroll
  for (int q = 0; q < 2; ++q) {
    for (int off = kWarpSize / 2; off > 0; off /= 2)
      band[q] = max(band[q], __shfl_down_sync(kFullMask, band[q], off));
    if (threadIdx.x % kWarpSize == 0 && band[q] != 0) atomicMax(counts + kPassCounts + q, band[q]);
  }
}

/// out[r] = the first column of row r, out[rows + r] its last; −1 when empty.
template <class I>
__global__ void __launch_bounds__(kBlock)
    first_last_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                      std::int64_t* __restrict__ out) {
  const std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (r >= rows) return;
  const std::int64_t b = ptr[r], e = ptr[r + 1];
  out[r] = b < e ? static_cast<std::int64_t>(col[b]) : -1;
  out[rows + r] = b < e ? static_cast<std::int64_t>(col[e - 1]) : -1;
}

/// count[0] += the entries that are the first of their aligned b×b block.
template <class I>
__global__ void __launch_bounds__(kBlock)
    blocks_search_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                         std::int64_t nnz, std::int64_t b, unsigned long long* __restrict__ count) {
  unsigned long long c[1] = {0};
  conv::for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t c0 = static_cast<std::int64_t>(col[k]) / b * b;
    // The row's previous entry (a smaller column) in the same block?
    if (k > static_cast<std::int64_t>(ptr[i]) && static_cast<std::int64_t>(col[k - 1]) >= c0)
      return;
    for (std::int64_t r = i - 1; r >= i / b * b; --r)
      if (row_holds(ptr, col, r, c0, c0 + b)) return;
    ++c[0];
  });
  add_block_counts(c, count);
}

/// counts[0] += the entries that are the first of their diagonal in their
/// hack of H rows, counts[1] += those of hack `last_hack`.
template <class I>
__global__ void __launch_bounds__(kBlock)
    hack_search_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                       std::int64_t nnz, std::int64_t H, std::int64_t last_hack,
                       unsigned long long* __restrict__ counts) {
  unsigned long long c[2] = {0, 0};
  conv::for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t h = i / H, d = static_cast<std::int64_t>(col[k]) - i;
    // Row r holds the diagonal at column d + r; nearest rows first.
    for (std::int64_t r = i - 1; r >= h * H && d + r >= 0; --r)
      if (row_holds(ptr, col, r, d + r, d + r + 1)) return;
    ++c[0];
    c[1] += h == last_hack;
  });
  add_block_counts(c, counts);
}

/// counts[0] += the runs of equal (key, row / G) among the n entries sorted
/// stably by key (rows_of = their rows, in row order within equal keys;
/// null: one group), counts[1] += those of group last_group.
template <class I>
__global__ void __launch_bounds__(kBlock)
    runs_kernel(const std::uint64_t* __restrict__ keys, const I* __restrict__ rows_of,
                std::int64_t G, std::int64_t last_group, std::int64_t n,
                unsigned long long* __restrict__ counts) {
  unsigned long long c[2] = {0, 0};
  for (std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; k < n;
       k += std::int64_t{gridDim.x} * kBlock) {
    const std::int64_t g = rows_of != nullptr ? static_cast<std::int64_t>(rows_of[k]) / G : 0;
    const bool head = k == 0 || keys[k] != keys[k - 1] ||
                      (rows_of != nullptr && static_cast<std::int64_t>(rows_of[k - 1]) / G != g);
    c[0] += head;
    c[1] += head && g == last_group;
  }
  add_block_counts(c, counts);
}

/// pos[0] = min(pos[0], position of any entry below the diagonal whose mirror
/// is not stored).
template <class I>
__global__ void __launch_bounds__(kBlock)
    unmirrored_lower_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                            std::int64_t nnz, unsigned long long* __restrict__ pos) {
  conv::for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t j = col[k];
    if (j < i && !row_holds(ptr, col, j, i, i + 1))
      atomicMin(pos, static_cast<unsigned long long>(k));
  });
}

/// counts[0] += C × the width (the longest row, rounded up to a multiple of
/// tpr) of each slice of C consecutive rows whose columns span at most
/// `span` (SELL-pack with σ = 1); a thread per slice.
template <class I>
__global__ void __launch_bounds__(kBlock)
    packed_slices_kernel(const I* __restrict__ ptr, const I* __restrict__ col, std::int64_t rows,
                         std::int64_t cols, std::int64_t C, std::int64_t tpr, std::int64_t span,
                         unsigned long long* __restrict__ counts) {
  unsigned long long c[1] = {0};
  const std::int64_t s = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (s * C < rows) {
    std::int64_t w = 0, lo = cols, hi = -1;
    for (std::int64_t r = s * C; r < min(rows, s * C + C); ++r) {
      const std::int64_t b = ptr[r], e = ptr[r + 1];
      w = max(w, e - b);
      if (e > b) {
        lo = min(lo, static_cast<std::int64_t>(col[b]));
        hi = max(hi, static_cast<std::int64_t>(col[e - 1]));
      }
    }
    if (hi - lo <= span) c[0] = static_cast<unsigned long long>(C * ((w + tpr - 1) / tpr * tpr));
  }
  add_block_counts(c, counts);
}

/// SYM_CSR's test, an entry per thread (rows of any length cost alike):
/// an entry (i, j) above the diagonal looks up (j, i), and lowers state[0]
/// to its position when that is absent or differs; counts[0..3) += the
/// entries above, below and on the diagonal.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    symmetry_kernel(const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                    std::int64_t rows, std::int64_t nnz, unsigned long long* __restrict__ state,
                    unsigned long long* __restrict__ counts) {
  unsigned long long c[3] = {0, 0, 0};
  conv::for_each_in_tile(ptr, rows, nnz, [&](std::int64_t k, std::int64_t i) {
    const std::int64_t j = col[k];
    if (j > i) {
      ++c[0];
      const std::int64_t b = ptr[j], e = ptr[j + 1];
      const std::int64_t p = lower_bound_index(col, b, e, std::int64_t{i});
      const bool mirrored = p < e && static_cast<std::int64_t>(col[p]) == i &&
                            (val[k] == val[p] || (val[k] != val[k] && val[p] != val[p]));
      // The first such entry. Where the values are not symmetric nearly
      // every entry above the diagonal lands here, and an atomic each on one
      // word serializes them, so only those before the first one seen so far
      // try; the minimum stays exact. (The device advice of
      // stencil3d-7pt-n144, whose values are not symmetric, took 19.2 ms
      // against 5.6 for its symmetric twin, where nothing is recorded; H200,
      // session 22, before this.)
      const auto first = static_cast<unsigned long long>(k);
      using Word = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;
      if (!mirrored && first < Word(*state).load(::cuda::std::memory_order_relaxed))
        atomicMin(state, first);
    } else {
      ++c[j < i ? 1 : 2];
    }
  });
  add_block_counts(c, counts);
}

/// out = {row i of entry k, its column j, the position of (j, i) or −1}
/// (one thread; A square).
template <class I>
__global__ void describe_entry_kernel(const I* __restrict__ ptr, const I* __restrict__ col,
                                      std::int64_t rows, std::int64_t k,
                                      std::int64_t* __restrict__ out) {
  const std::int64_t i = conv::last_le(ptr, 0, rows - 1, k);
  const std::int64_t j = col[k];
  const std::int64_t b = ptr[j], e = ptr[j + 1];
  const std::int64_t p = lower_bound_index(col, b, e, std::int64_t{i});
  out[0] = i;
  out[1] = j;
  out[2] = p < e && static_cast<std::int64_t>(col[p]) == i ? p : -1;
}

// ---- host side, per index type ------------------------------------------------------

struct Runs {
  std::int64_t total = 0, last = 0;
};

/// The distinct pairs (row / G, key) over the entries, in all and in the last
/// group (G >= rows: one group), with key the subkey of conv::entry_keys in
/// `mode` (Diagonal: column − row + rows − 1; Block: column / H) of end_bit
/// bits: the keys radix sorted (stably, carrying the rows when there are
/// several groups), then the runs counted. nnz > 0.
template <Index I>
Runs sorted_runs(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz,
                 conv::KeyMode mode, std::int64_t H, int end_bit, std::int64_t G) {
  Scratch<std::uint64_t> a(nnz), b(nnz);
  // sub_bits = 64: the key is the subkey alone (no group above it).
  conv::entry_keys(ptr, col, rows, nnz, mode, H, 64, a.get());
  Scratch<unsigned long long> out(2);
  zero_counters(out.get(), 2, "cudaMemsetAsync (column runs)");
  const unsigned grid = stride_grid(nnz);
  if (G >= rows) {
    const std::uint64_t* keys = conv::sort_keys(a.get(), b.get(), nnz, end_bit);
    runs_kernel<I><<<grid, kBlock, 0, kStream>>>(keys, nullptr, 1, 0, nnz, out.get());
  } else {
    // Entries come in row order, so a stable sort keeps each key's groups in order.
    Scratch<I> r(nnz), r_alt(nnz);
    conv::expand_rows(ptr, rows, nnz, r.get());
    std::uint64_t* keys = nullptr;
    const I* sorted_rows =
        conv::sort_pairs(a.get(), b.get(), r.get(), r_alt.get(), nnz, end_bit, &keys);
    runs_kernel<I>
        <<<grid, kBlock, 0, kStream>>>(keys, sorted_rows, G, (rows - 1) / G, nnz, out.get());
  }
  check_launch("runs_kernel");
  unsigned long long h[2];
  read_counters(out.get(), 2, h, "cudaMemcpy (column runs)");
  return {static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1])};
}

template <Index I>
ColumnCounts column_counts(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                           std::int64_t nnz) {
  ColumnCounts out;
  if (nnz == 0) return out;

  // The kPassCounts counts, then the two bandwidths.
  constexpr int kAll = kPassCounts + 2;
  Scratch<unsigned long long> counts(kAll);
  zero_counters(counts.get(), kAll, "cudaMemsetAsync (column counts)");
  constexpr std::int64_t kNarrow = std::int64_t{1} << 32;
  if (m < kNarrow && n < kNarrow)
    column_counts_kernel<true, I><<<conv::tiles_for(nnz, "column_counts"), kBlock, 0, kStream>>>(
        ptr, col, m, nnz, counts.get());
  else
    column_counts_kernel<false, I><<<conv::tiles_for(nnz, "column_counts"), kBlock, 0, kStream>>>(
        ptr, col, m, nnz, counts.get());
  check_launch("column_counts");
  unsigned long long h[kAll];
  read_counters(counts.get(), kAll, h, "cudaMemcpy (column counts)");
  out.lower_bandwidth = static_cast<std::int64_t>(h[kPassCounts]);
  out.upper_bandwidth = static_cast<std::int64_t>(h[kPassCounts + 1]);
  for (int b = 0; b < kBlockSizes; ++b)
    out.blocks[static_cast<std::size_t>(b)] = static_cast<std::int64_t>(h[b]);
  out.scattered = static_cast<std::int64_t>(h[kScattered]);
  // As core/stats.cpp: a map of the m + n − 1 diagonals where m + n slots fit
  // nnz + m + 64 Ki (here a bit each, set as DIA's conversion sets them), else
  // a sort of the entries' diagonals.
  // (m + n ≤ nnz + m + 64 Ki, written without the sum m + n, which a
  // 1 × (2⁶³ − 1) matrix overflows.)
  if (n <= nnz + (std::int64_t{1} << 16)) {
    const std::int64_t words = conv::diagonal_words(m + n - 1);
    Scratch<std::uint32_t> bits(words);
    Scratch<std::int64_t> pos(words + 1);
    out.diagonals = conv::count_diagonals(ptr, col, m, nnz, words, bits.get(), pos.get());
  } else {
    out.diagonals = sorted_runs(ptr, col, m, nnz, conv::KeyMode::Diagonal, m,
                                conv::bit_width(conv::largest_diagonal_key(m, n)), m)
                        .total;
  }
  return out;
}

template <Index I>
HackDiagonals hack_diagonals(const I* ptr, const I* col, std::int64_t m, std::int64_t n,
                             std::int64_t nnz, std::int64_t H) {
  if (nnz == 0) return {};
  const std::int64_t G = std::min(H, m);  // H >= m: one hack
  const std::int64_t last_hack = (m - 1) / G;
  if (G <= kSearchRows) {
    Scratch<unsigned long long> counts(2);
    zero_counters(counts.get(), 2, "cudaMemsetAsync (hack diagonals)");
    hack_search_kernel<I><<<conv::tiles_for(nnz, "hack_diagonals"), kBlock, 0, kStream>>>(
        ptr, col, m, nnz, G, last_hack, counts.get());
    check_launch("hack_diagonals");
    unsigned long long h[2];
    read_counters(counts.get(), 2, h, "cudaMemcpy (hack diagonals)");
    return {static_cast<std::int64_t>(h[0]), static_cast<std::int64_t>(h[1])};
  }
  const Runs r = sorted_runs(ptr, col, m, nnz, conv::KeyMode::Diagonal, m,
                             conv::bit_width(conv::largest_diagonal_key(m, n)), G);
  return {r.total, r.last};
}

template <Index I>
std::int64_t blocks(const I* ptr, const I* col, std::int64_t m, std::int64_t n, std::int64_t nnz,
                    std::int64_t b) {
  if (nnz == 0) return 0;
  if (b == 1) return nnz;
  if (b <= kSearchRows) {
    Scratch<unsigned long long> count(1);
    zero_counters(count.get(), 1, "cudaMemsetAsync (blocks)");
    blocks_search_kernel<I>
        <<<conv::tiles_for(nnz, "blocks"), kBlock, 0, kStream>>>(ptr, col, m, nnz, b, count.get());
    check_launch("blocks");
    unsigned long long h = 0;
    read_counters(count.get(), 1, &h, "cudaMemcpy (blocks)");
    return static_cast<std::int64_t>(h);
  }
  return sorted_runs(ptr, col, m, nnz, conv::KeyMode::Block, b,
                     conv::bit_width(static_cast<std::uint64_t>((n - 1) / b)), b)
      .total;
}

/// The position (< nnz) of the first entry below the diagonal without a
/// mirror, or −1.
template <Index I>
std::int64_t unmirrored_lower(const I* ptr, const I* col, std::int64_t rows, std::int64_t nnz) {
  if (nnz == 0) return -1;
  Scratch<unsigned long long> pos(1);
  check(cudaMemsetAsync(pos.get(), 0xFF, sizeof(unsigned long long), kStream),
        "cudaMemsetAsync (symmetry)");
  unmirrored_lower_kernel<I><<<conv::tiles_for(nnz, "unmirrored_lower"), kBlock, 0, kStream>>>(
      ptr, col, rows, nnz, pos.get());
  check_launch("unmirrored_lower");
  unsigned long long h = 0;
  read_counters(pos.get(), 1, &h, "cudaMemcpy (symmetry)");
  return h == ULLONG_MAX ? -1 : static_cast<std::int64_t>(h);
}

/// Throws the host's refusal for entry k (at (i, j)) of a square A: (j, i)
/// is absent, or its value differs.
template <Value T, Index I>
[[noreturn]] void refuse_entry(const Csr<T, I>& A, std::int64_t k, std::string_view format) {
  Scratch<std::int64_t> d(3);
  describe_entry_kernel<I>
      <<<1, 1, 0, kStream>>>(A.row_ptr().data(), A.col_idx().data(), A.rows(), k, d.get());
  check_launch("describe_entry");
  std::int64_t e[3] = {0, 0, -1};
  check(cudaMemcpy(e, d.get(), sizeof e, cudaMemcpyDeviceToHost), "cudaMemcpy (symmetry)");
  T aij{}, aji{};
  check(cudaMemcpy(&aij, A.values().data() + k, sizeof(T), cudaMemcpyDeviceToHost),
        "cudaMemcpy (symmetry)");
  if (e[2] >= 0)
    check(cudaMemcpy(&aji, A.values().data() + e[2], sizeof(T), cudaMemcpyDeviceToHost),
          "cudaMemcpy (symmetry)");
  detail::throw_not_symmetric<T>(e[0], e[1], aij, e[2] >= 0 ? &aji : nullptr, format);
}

}  // namespace

template <Value T, Index I>
ColumnCounts csr_column_counts(const Csr<T, I>& A) {
  require_device(A, "csr_column_counts");
  return column_counts(A.row_ptr().data(), A.col_idx().data(), A.rows(), A.cols(), A.nnz());
}

template <Value T, Index I>
HackDiagonals csr_hack_diagonals(const Csr<T, I>& A, std::int64_t H) {
  require_device(A, "csr_hack_diagonals");
  if (H < 1)
    throw InvalidInput("spx::cuda::csr_hack_diagonals: the hack size must be at least 1, not " +
                       std::to_string(H));
  return hack_diagonals(A.row_ptr().data(), A.col_idx().data(), A.rows(), A.cols(), A.nnz(), H);
}

template <Value T, Index I>
std::int64_t csr_blocks(const Csr<T, I>& A, std::int64_t b) {
  require_device(A, "csr_blocks");
  if (b < 1)
    throw InvalidInput("spx::cuda::csr_blocks: the block size must be at least 1, not " +
                       std::to_string(b));
  return blocks(A.row_ptr().data(), A.col_idx().data(), A.rows(), A.cols(), A.nnz(), b);
}

template <Value T, Index I>
std::int64_t csr_symmetric_diagonal(const Csr<T, I>& A, std::string_view format) {
  require_device(A, "csr_symmetric_diagonal");
  detail::check_sym_square(A.rows(), A.cols(), format);
  const std::int64_t rows = A.rows(), nnz = A.nnz();
  if (nnz == 0) return 0;
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  // state[0] = UINT64_MAX (no asymmetric entry yet); counts: above, below, on.
  Scratch<unsigned long long> state(4);
  check(cudaMemsetAsync(state.get(), 0xFF, sizeof(unsigned long long), kStream),
        "cudaMemsetAsync (symmetry)");
  zero_counters(state.get() + 1, 3, "cudaMemsetAsync (symmetry)");
  symmetry_kernel<T, I><<<conv::tiles_for(nnz, "symmetry"), kBlock, 0, kStream>>>(
      ptr, col, A.values().data(), rows, nnz, state.get(), state.get() + 1);
  check_launch("symmetry");
  unsigned long long h[4] = {0, 0, 0, 0};
  read_counters(state.get(), 4, h, "cudaMemcpy (symmetry)");
  // An entry above the diagonal whose mirror is absent or differs.
  if (h[0] != ULLONG_MAX) refuse_entry(A, static_cast<std::int64_t>(h[0]), format);
  // Every entry above has its mirror below, each a different one: the
  // matrix is symmetric when nothing else lies below.
  if (h[1] != h[2]) {
    const std::int64_t k = unmirrored_lower(ptr, col, rows, nnz);
    if (k >= 0) refuse_entry(A, k, format);
    throw Unsupported(
        std::string(format) + ": the matrix is not symmetric: its lower triangle holds " +
        std::to_string(h[2]) + " entries, its upper triangle " + std::to_string(h[1]));
  }
  return static_cast<std::int64_t>(h[3]);
}

template <Value T, Index I>
std::int64_t csr_packed_entries(const Csr<T, I>& A, std::int64_t C, std::int64_t tpr) {
  require_device(A, "csr_packed_entries");
  if (C < 1 || tpr < 1)
    throw InvalidInput("spx::cuda::csr_packed_entries: slice size " + std::to_string(C) +
                       " and lanes per row " + std::to_string(tpr) + " must be at least 1");
  const std::int64_t rows = A.rows(), slices = (rows + C - 1) / C;
  if (slices == 0) return 0;
  Scratch<unsigned long long> count(1);
  zero_counters(count.get(), 1, "cudaMemsetAsync (packed slices)");
  packed_slices_kernel<I><<<conv::blocks_for(slices, "packed_slices"), kBlock, 0, kStream>>>(
      A.row_ptr().data(), A.col_idx().data(), rows, A.cols(), C, tpr, SellPack<T, I>::kMaxSpan,
      count.get());
  check_launch("packed_slices");
  unsigned long long h = 0;
  read_counters(count.get(), 1, &h, "cudaMemcpy (packed slices)");
  return static_cast<std::int64_t>(h);
}

template <Value T, Index I>
RowEnds csr_row_ends(const Csr<T, I>& A) {
  require_device(A, "csr_row_ends");
  const std::int64_t m = A.rows();
  RowEnds out;
  out.first.assign(static_cast<std::size_t>(m), -1);
  out.last.assign(static_cast<std::size_t>(m), -1);
  if (m == 0) return out;
  Scratch<std::int64_t> ends(2 * m);
  first_last_kernel<I><<<conv::blocks_for(m, "first_last"), kBlock, 0, kStream>>>(
      A.row_ptr().data(), A.col_idx().data(), m, ends.get());
  check_launch("first_last");
  const std::size_t bytes = static_cast<std::size_t>(m) * sizeof(std::int64_t);
  check(cudaMemcpy(out.first.data(), ends.get(), bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy (first columns)");
  check(cudaMemcpy(out.last.data(), ends.get() + m, bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy (last columns)");
  return out;
}

#define SPX_INST(T, I)                                                                    \
  template ColumnCounts csr_column_counts(const Csr<T, I>&);                              \
  template HackDiagonals csr_hack_diagonals(const Csr<T, I>&, std::int64_t);              \
  template std::int64_t csr_blocks(const Csr<T, I>&, std::int64_t);                       \
  template std::int64_t csr_symmetric_diagonal(const Csr<T, I>&, std::string_view);       \
  template std::int64_t csr_packed_entries(const Csr<T, I>&, std::int64_t, std::int64_t); \
  template RowEnds csr_row_ends(const Csr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
