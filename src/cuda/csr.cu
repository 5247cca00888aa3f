// CSR SpMV kernels (batched paper §3.4-3.5, SpMM paper §4, Merrill and
// Garland's merge path), their launchers, the preprocessing they keep with the
// matrix, and the Auto rule.
//
//   scalar, vector, adaptive  one kernel template, V lanes per row (V = 1, 32,
//                             or the next power of two of the mean row length)
//   balanced (CSR-I)          equal nonzeros per warp, precomputed first rows,
//                             carry-out fix-up instead of atomics
//   merge path                equal (rows + nonzeros) per block and thread,
//                             carry-outs fixed up in the block and across blocks
//   nonzero split             equal nonzeros per thread, read with 16-byte
//                             loads; rows found from marks in shared memory
//
// Every kernel here is deterministic: the order of every floating-point
// addition depends only on the matrix and the launch geometry, never on timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/csr_rows.cuh"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {
namespace {

constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr int kMergeItems = 7;  ///< merge-path items per thread
/// Merge-path items per thread for rows with local columns: 11 in f32; in f64
/// 7, as for scattered rows (see spmv_csr_merge).
template <class T>
constexpr int kMergeItemsLocal = sizeof(T) == 8 ? kMergeItems : 11;
constexpr int kSplitItems = 8;              ///< nonzeros per thread of nonzero split
constexpr std::int64_t kNoRow = INT64_MAX;  ///< key of lanes without a nonzero
constexpr int kUnroll = 4;                  ///< entries per lane per batch in the V-lane kernels

// ---- scalar / vector / adaptive ---------------------------------------------

/// V consecutive lanes per row (V a power of two, 1..32), U entries per lane
/// per batch; Stream: column indices and values read with evict-first loads.
template <int V, int U, bool Stream, class T, class I>
__global__ void __launch_bounds__(kBlock)
    csr_rows_kernel(std::int64_t rows, const I* __restrict__ row_ptr, const I* __restrict__ col,
                    const T* __restrict__ val, const T* __restrict__ x, T alpha, T beta,
                    T* __restrict__ y) {
  const std::int64_t thread = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  const std::int64_t row = thread / V;
  const int sub = static_cast<int>(threadIdx.x % V);
  const bool active = row < rows;  // lanes past the last row stay for the shuffles
  // Phase 1: the row's V lanes stride over its nonzeros (lanes_row_sum).
  const T sum =
      active ? lanes_row_sum<V, U, Stream>(row_ptr[row], row_ptr[row + 1], sub, col, val, x) : T{0};
  // Phase 2: reduce over the row's lanes; every lane of the warp takes part.
  const T total = group_sum<V>(sum);
  // Phase 3: the row's first lane stores.
  if (active && sub == 0) store_axpby(y, row, alpha, total, beta);
}

template <int V, class T, class I>
void launch_rows(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, cudaStream_t stream) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows * V, kBlock, "csr_rows_kernel");
  // Streaming loads pay when a row's lanes read coalesced runs (V >= 8); with
  // fewer lanes the next batch reuses the cache lines of this one (measured).
  csr_rows_kernel<V, kUnroll, (V >= 8)><<<grid, kBlock, 0, stream>>>(
      rows, A.row_ptr().data(), A.col_idx().data(), A.values().data(), x, alpha, beta, y);
  check_launch("csr_rows_kernel");
}

// ---- carry-out fix-up (balanced and merge path) -----------------------------

/// y[row] += alpha * (sum of the carries of that row). Carries of one row are
/// consecutive (rows non-decreasing among valid entries); entries with a row
/// outside [0, rows) carry nothing. One warp per entry: the warp at the first
/// entry of a row's run sums the run in a fixed order, the others leave.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    add_carries_kernel(std::int64_t n, const I* __restrict__ carry_row,
                       const T* __restrict__ carry_val, std::int64_t rows, T alpha,
                       T* __restrict__ y) {
  const std::int64_t i = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (i >= n) return;  // warp-uniform
  const std::int64_t row = carry_row[i];
  if (row < 0 || row >= rows) return;                                       // warp-uniform
  if (i > 0 && static_cast<std::int64_t>(carry_row[i - 1]) == row) return;  // not a run's first
  // Phase 1: the lanes stride over the run until a window leaves it.
  T sum = 0;
  for (std::int64_t base = i;; base += kWarpSize) {
    const std::int64_t j = base + lane;
    const bool in_run = j < n && static_cast<std::int64_t>(carry_row[j]) == row;
    if (in_run) sum += carry_val[j];
    if (__ballot_sync(kFullMask, !in_run) != 0) break;
  }
  // Phase 2: reduce and add to the row, stored earlier by its owner.
  sum = group_sum<kWarpSize>(sum);
  if (lane == 0) y[row] += alpha * sum;
}

template <class T, class I>
void add_carries(std::int64_t n, const I* carry_row, const T* carry_val, std::int64_t rows, T alpha,
                 T* y, cudaStream_t stream) {
  const unsigned grid = grid_size(n * kWarpSize, kBlock, "add_carries_kernel");
  add_carries_kernel<<<grid, kBlock, 0, stream>>>(n, carry_row, carry_val, rows, alpha, y);
  check_launch("add_carries_kernel");
}

/// Per-call carry-outs: n rows and n values in one stream-ordered allocation.
template <class T, class I>
class Carries {
 public:
  Carries(std::size_t n, cudaStream_t stream)
      : offset_((n * sizeof(I) + 255) / 256 * 256), scratch_(offset_ + n * sizeof(T), stream) {}
  I* rows() const { return scratch_.as<I>(); }
  T* values() const { return reinterpret_cast<T*>(scratch_.as<unsigned char>() + offset_); }

 private:
  std::size_t offset_;  ///< bytes before the values, a multiple of 256
  StreamScratch scratch_;
};

// ---- balanced (CSR-I) ---------------------------------------------------------

/// Nonzeros [w*chunk, (w+1)*chunk) go to warp w. Warp w stores the rows
/// [warp_row[w], warp_row[w+1]): the rows whose last nonzero lies in its chunk,
/// plus the empty rows just after them (warp 0 also stores the empty rows
/// before the first nonzero). warp_row[w] is the row holding nonzero w*chunk.
template <class I>
__global__ void balanced_plan_kernel(std::int64_t rows, const I* __restrict__ row_ptr,
                                     std::int64_t chunk, std::int64_t warps,
                                     I* __restrict__ warp_row) {
  const std::int64_t w = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (w > warps) return;
  std::int64_t row = 0;
  if (w == warps) {
    row = rows;
  } else if (w > 0) {
    row = upper_bound_index(row_ptr + 1, 0, rows, w * chunk);  // the row holding nonzero w*chunk
  }
  warp_row[w] = static_cast<I>(row);
}

/// Stores beta*y in the empty rows [begin, end) of every lane with has_gap,
/// the whole warp writing one lane's range at a time.
template <class T>
__device__ void fill_empty_rows(bool has_gap, std::int64_t begin, std::int64_t end, T beta, T* y,
                                int lane) {
  unsigned gaps = __ballot_sync(kFullMask, has_gap);
  while (gaps != 0) {
    const int src = __ffs(gaps) - 1;
    gaps &= gaps - 1;
    const std::int64_t b = __shfl_sync(kFullMask, begin, src);
    const std::int64_t e = __shfl_sync(kFullMask, end, src);
    for (std::int64_t r = b + lane; r < e; r += kWarpSize)
      store_scaled(y, r, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    csr_balanced_kernel(std::int64_t rows, std::int64_t nnz, const I* __restrict__ row_ptr,
                        const I* __restrict__ col, const T* __restrict__ val,
                        const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                        const I* __restrict__ warp_row, std::int64_t chunk, std::int64_t warps,
                        I* __restrict__ carry_row, T* __restrict__ carry_val) {
  const std::int64_t warp = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (warp >= warps) return;  // warp-uniform: the whole warp leaves
  const std::int64_t k_begin = warp * chunk;
  const std::int64_t k_end = min(k_begin + chunk, nnz);
  const std::int64_t own_end = warp_row[warp + 1];

  std::int64_t prev_row = std::int64_t{warp_row[warp]} - 1;  // row of the last nonzero seen
  std::int64_t search_from = warp_row[warp];                 // no nonzero ahead is in a lower row
  T carry = 0;           // partial sum of prev_row, not stored yet when `pending`
  bool pending = false;  // prev_row continues beyond the nonzeros seen

  for (std::int64_t base = k_begin; base < k_end; base += kWarpSize) {
    const std::int64_t k = base + lane;
    const bool valid = k < k_end;
    const int last = static_cast<int>(min(std::int64_t{kWarpSize - 1}, k_end - 1 - base));

    // Phase 1: the products of the window's 32 nonzeros (loads issued first).
    T prod = valid ? val[k] * __ldg(x + col[k]) : T{0};

    // Phase 2: each nonzero's row = search_from + (number of row ends <= k),
    // reading the row ends 32 at a time (more rounds only across empty rows).
    std::int64_t row = -1;
    bool found = !valid;
    for (std::int64_t r0 = search_from;; r0 += kWarpSize) {
      const std::int64_t i = r0 + 1 + lane;
      const std::int64_t row_end = i <= rows ? std::int64_t{row_ptr[i]} : kNoRow;
      const int ends = warp_count_le(row_end, valid ? k : -1);
      if (!found && ends < kWarpSize) {
        row = r0 + ends;
        found = true;
      }
      if (__all_sync(kFullMask, found)) break;
    }
    const std::int64_t key = valid ? row : kNoRow;

    // Phase 3: a row left open by the previous window continues in lane 0.
    if (lane == 0 && pending) prod += carry;

    // Phase 4: sums over the runs of equal row.
    unsigned heads = 0;
    const T total = warp_run_scan(key, prod, lane, heads);

    // Phase 5: store every row that ends in this window (all runs but perhaps
    // the last, which may continue past the window).
    bool complete = false;
    if (valid && run_tail(heads, lane))
      complete = lane != last || k + 1 == static_cast<std::int64_t>(row_ptr[row + 1]);
    if (complete) store_axpby(y, row, alpha, total, beta);

    // Phase 6: the empty rows between consecutive nonzeros' rows.
    const std::int64_t before = __shfl_up_sync(kFullMask, key, 1);
    const std::int64_t gap_begin = (lane == 0 ? prev_row : before) + 1;
    fill_empty_rows(valid && row > gap_begin, gap_begin, row, beta, y, lane);

    // Phase 7: the window's last row stays open if it did not end here.
    pending = __shfl_sync(kFullMask, static_cast<int>(complete), last) == 0;
    carry = __shfl_sync(kFullMask, total, last);
    prev_row = __shfl_sync(kFullMask, row, last);
    search_from = prev_row;
  }

  // Phase 8: empty rows after the last row ended here, up to the next warp's
  // first row (none when the last row continues: then own_end == prev_row).
  for (std::int64_t r = prev_row + 1 + lane; r < own_end; r += kWarpSize)
    store_scaled(y, r, beta);

  // Phase 9: carry-out of a row that continues into the next chunk.
  if (lane == 0) {
    carry_row[warp] = pending ? static_cast<I>(prev_row) : I{-1};
    carry_val[warp] = pending ? carry : T{0};
  }
}

/// The plan of equal chunks of nonzeros (the balanced kernel's warps,
/// nonzero split's blocks): the row holding each chunk's first nonzero.
template <class T, class I>
const BalancedPlan<I>& block_rows(const Csr<T, I>& A, std::int64_t chunk, cudaStream_t stream) {
  return A.structure_cache().template get<BalancedPlan<I>>(chunk, [&] {
    BalancedPlan<I> plan;
    plan.chunk = chunk;
    plan.warps = ceil_div(A.nnz(), chunk);
    plan.warp_row = Array<I>(static_cast<std::size_t>(plan.warps + 1), Space::Device);
    balanced_plan_kernel<<<grid_size(plan.warps + 1, kBlock, "balanced_plan_kernel"), kBlock, 0,
                           stream>>>(A.rows(), A.row_ptr().data(), plan.chunk, plan.warps,
                                     plan.warp_row.data());
    check_launch("balanced_plan_kernel");
    // Later calls may come on other streams: finish the plan before sharing it.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(block rows)");
    return plan;
  });
}

template <class T, class I>
const BalancedPlan<I>& balanced_plan(const Csr<T, I>& A, cudaStream_t stream) {
  // One wave: as many warps as can be resident at once, equal nonzeros each.
  const std::int64_t resident = resident_warps(
      reinterpret_cast<const void*>(csr_balanced_kernel<T, I>), kBlock, "csr_balanced_kernel");
  const std::int64_t nnz = A.nnz();
  const std::int64_t chunk =
      ceil_div(std::max<std::int64_t>(ceil_div(nnz, resident), 1), kWarpSize) * kWarpSize;
  return block_rows(A, chunk, stream);
}

// ---- merge path -------------------------------------------------------------

/// Block b handles the merge-path items [b*tile, (b+1)*tile): coords[2b] rows
/// and coords[2b+1] nonzeros are consumed before it.
template <class I>
__global__ void merge_plan_kernel(std::int64_t rows, std::int64_t nnz,
                                  const I* __restrict__ row_ptr, std::int64_t blocks,
                                  std::int64_t tile, I* __restrict__ coords) {
  const std::int64_t b = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (b > blocks) return;
  const std::int64_t d = min(b * tile, rows + nnz);
  const std::int64_t r = merge_path_rows(
      d, [row_ptr](std::int64_t i) { return row_ptr[i + 1]; }, rows, 0, nnz);
  coords[2 * b] = static_cast<I>(r);
  coords[2 * b + 1] = static_cast<I>(d - r);
}

/// Shared-memory item: a row end (relative to the block's first nonzero: it
/// fits an int) or a product, never both at once; after the consume loop the
/// row-end slots take the rows' sums.
template <class T>
union MergeItem {
  int row_end;
  T product;
};

/// Inclusive sum over the block's threads within runs of equal key (keys
/// non-decreasing in thread order).
template <class T>
__device__ T block_run_scan(int key, T v, int lane, int warp_id, int* warp_key, T* warp_sum) {
  unsigned heads = 0;
  v = warp_run_scan(key, v, lane, heads);
  // Phase 1: each warp's last lane publishes its key and partial sum.
  if (lane == kWarpSize - 1) {
    warp_key[warp_id] = key;
    warp_sum[warp_id] = v;
  }
  __syncthreads();
  // Phase 2: the first warp scans the warps' partial sums.
  if (warp_id == 0) {
    const int k = lane < kWarpsPerBlock ? warp_key[lane] : INT_MAX;
    T s = lane < kWarpsPerBlock ? warp_sum[lane] : T{0};
    s = warp_run_scan(k, s, lane, heads);
    if (lane < kWarpsPerBlock) warp_sum[lane] = s;
  }
  __syncthreads();
  // Phase 3: a run that started in an earlier warp adds what came before.
  if (warp_id > 0 && warp_key[warp_id - 1] == key) v += warp_sum[warp_id - 1];
  return v;
}

template <int Items, bool Stream, class T, class I>
__global__ void __launch_bounds__(kBlock)
    csr_merge_kernel(const I* __restrict__ row_ptr, const I* __restrict__ col,
                     const T* __restrict__ val, const T* __restrict__ x, T alpha, T beta,
                     T* __restrict__ y, const I* __restrict__ coords, I* __restrict__ carry_row,
                     T* __restrict__ carry_val) {
  // 8-byte values (all with 7 items): the rows' sums go to
  // shared memory before the block scan instead of staying in registers
  // across it: one barrier more, 32 registers instead of 40 with evict-first
  // loads (ptxas, sm_90; 8 resident blocks per SM instead of 6). Same binary,
  // H100 and H200: 3.8-4.2% faster on mixed-n2000000 f64, 1.3-1.6% on
  // denserows-n2000000 f64, the other irregular f64 cases within 2%. Not
  // taken in f32, where it was slower (7 items: 40 registers to 32 as well,
  // yet up to 8% slower on the H100; on the H200 from 0.4% slower to 8%
  // faster on the large members, up to 6.5% slower on the 1M-nonzero ones).
  constexpr bool kSumsEarly = sizeof(T) == 8;
  __shared__ MergeItem<T> items[kBlock * Items + 1];  // + 1: the loads past the last product
  __shared__ int warp_key[kWarpsPerBlock];
  __shared__ T warp_sum[kWarpsPerBlock];
  const int tid = threadIdx.x;
  const int lane = tid % kWarpSize;
  const int warp_id = tid / kWarpSize;
  const std::int64_t b = blockIdx.x;

  // Phase 1: the block's share of the path: rows [r0, r1) end in it, and it
  // consumes nonzeros [k0, k1).
  const std::int64_t r0 = coords[2 * b], k0 = coords[2 * b + 1];
  const std::int64_t r1 = coords[2 * b + 2], k1 = coords[2 * b + 3];
  const int nr = static_cast<int>(r1 - r0);
  const int nk = static_cast<int>(k1 - k0);

  // Phase 2: stage the row ends and the products of the nonzeros (coalesced).
  for (int i = tid; i < nr; i += kBlock)
    items[i].row_end = static_cast<int>(row_ptr[r0 + 1 + i] - k0);
  {  // all loads of a thread issued before the first product (nk <= kBlock * Items)
    // The warps' loads start at a multiple of 32 entries below k0, so a
    // warp's load covers whole 128-byte lines (of 32-bit indices or floats;
    // two of 64-bit indices or doubles) when the arrays start on a 256-byte
    // boundary, as device allocations do: ncu counted 4.5% fewer L2 requests
    // on rmat-s21 f64, 21% on mixed-n2000000 f32, and these loads alone gave
    // 1.00-1.07x the speed on the irregular members (H100). The lanes below
    // k0 load nothing, and warp 0 takes the up to 31 entries this moves past
    // kBlock * Items in one more round.
    const int shift = static_cast<int>(k0 & 31);
    const I* const cb = col + (k0 - shift);
    const T* const vb = val + (k0 - shift);
    constexpr int kRounds = Items + 1;
    I c[kRounds];
    T v[kRounds];
    // entry j (from cb) is one of the block's nonzeros; only warp 0 can have
    // one in the last round
    auto in_tile = [&](int u, int j) {
      return static_cast<unsigned>(j - shift) < static_cast<unsigned>(nk) &&
             (u < Items || tid < kWarpSize);
    };
#pragma unroll
    for (int u = 0; u < kRounds; ++u) {
      const int j = tid + u * kBlock;
      const bool in = in_tile(u, j);
      if constexpr (Stream) {  // evict-first: read once, coalesced
        c[u] = in ? __ldcs(cb + j) : I{0};
        v[u] = in ? __ldcs(vb + j) : T{0};
      } else {
        c[u] = in ? cb[j] : I{0};
        v[u] = in ? vb[j] : T{0};
      }
    }
#pragma unroll
    for (int u = 0; u < kRounds; ++u) {
      const int j = tid + u * kBlock;
      if (in_tile(u, j)) items[nr + (j - shift)].product = v[u] * __ldg(x + c[u]);
    }
  }
  __syncthreads();

  // Phase 3: each thread's share, Items items; its start by a search.
  const int d_total = nr + nk;
  const int d_begin = min(tid * Items, d_total);
  // (32-bit: the row ends are relative to k0, so the path starts at nonzero 0)
  const int start_row = merge_path_rows<int>(
      d_begin, [&](int i) { return items[i].row_end; }, nr, 0, nk);
  const int limit = d_total - d_begin;  // valid items from d_begin: < Items only at the very end

  // Phase 4: consume the items, unrolled and predicated, without divergent
  // branches: a row end records the row's sum in sums[u] and bit u of ended;
  // a nonzero adds its product. The current row's end stays in a register;
  // rows past the block's last end never end here.
  auto end_of = [&](int r) { return r < nr ? items[r].row_end : INT_MAX; };
  int row = start_row;
  int nz = d_begin - start_row;
  int end = end_of(row);
  T sum = 0;
  T sums[Items];
  unsigned ended = 0;
#pragma unroll
  for (int u = 0; u < Items; ++u) {
    const bool valid = u < limit;
    const bool at_end = valid && nz >= end;
    const T product = items[nr + min(nz, nk)].product;  // read always, used when it is a nonzero
    sums[u] = sum;
    sum = at_end ? T{0} : (valid ? sum + product : sum);
    nz += valid && !at_end ? 1 : 0;
    row += at_end ? 1 : 0;
    const int next_end = end_of(row);  // read always, kept at a row end
    end = at_end ? next_end : end;
    ended |= at_end ? 1u << u : 0u;
  }

  // f(r, u) for each row r this thread ended, at its item u (in order).
  auto for_each_ended = [&](auto&& f) {
    int r = start_row;
#pragma unroll
    for (int u = 0; u < Items; ++u) {
      if ((ended >> u) & 1u) f(r, u);
      r += (ended >> u) & 1u;
    }
  };
  if constexpr (kSumsEarly) {
    // Phase 4b: once every thread has read its row ends, the sums of the
    // rows ended here replace them in shared memory (the carry-in follows).
    __syncthreads();
    for_each_ended([&](int r, int u) { items[r].product = sums[u]; });
  }
  // Phase 5: carry-outs (the partial sum of the row each thread ends in),
  // scanned over the block by row; a thread's carry-in is its predecessor's.
  // The scan's barriers also end every thread's reads of the row ends.
  const T inclusive = block_run_scan(row, sum, lane, warp_id, warp_key, warp_sum);
  T carry_in = __shfl_up_sync(kFullMask, inclusive, 1);
  if (lane == 0) carry_in = warp_id > 0 ? warp_sum[warp_id - 1] : T{0};

  // Phase 6: the sums of the rows ended here replace their row ends in shared
  // memory (kSumsEarly: already there); the first, the row the thread started
  // in, gets the carry-in. Then the block stores its rows, coalesced.
  if constexpr (kSumsEarly) {
    if (ended != 0) items[start_row].product += carry_in;
  } else {
    for_each_ended(
        [&](int r, int u) { items[r].product = r == start_row ? carry_in + sums[u] : sums[u]; });
  }
  __syncthreads();
  T* const yb = y + r0;
  for (int i = tid; i < nr; i += kBlock)
    store_axpby(yb, i, alpha, items[i].product, beta);

  // Phase 7: the block's carry-out, for the row it ends in (continued in the
  // next block; row r1 == rows past the end carries nothing).
  if (tid == kBlock - 1) {
    carry_row[b] = static_cast<I>(r1);
    carry_val[b] = inclusive;
  }
}

template <class T, class I>
const MergePlan<I>& merge_plan(const Csr<T, I>& A, std::int64_t tile, cudaStream_t stream) {
  return A.structure_cache().template get<MergePlan<I>>(tile, [&] {
    const std::int64_t rows = A.rows(), nnz = A.nnz();
    MergePlan<I> plan;
    plan.blocks = ceil_div(rows + nnz, tile);
    plan.coords = Array<I>(static_cast<std::size_t>(2 * (plan.blocks + 1)), Space::Device);
    merge_plan_kernel<<<grid_size(plan.blocks + 1, kBlock, "merge_plan_kernel"), kBlock, 0,
                        stream>>>(rows, nnz, A.row_ptr().data(), plan.blocks, tile,
                                  plan.coords.data());
    check_launch("merge_plan_kernel");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(merge plan)");
    return plan;
  });
}

// ---- nonzero split ------------------------------------------------------------

/// Loads the N consecutive entries at p (16-byte aligned) with 16-byte loads.
template <int N, bool Stream, class E>
__device__ __forceinline__ void load_run(const E* p, E (&out)[N]) {
  static_assert((N * sizeof(E)) % 16 == 0, "whole 16-byte vectors");
  constexpr int kVecs = N * sizeof(E) / 16;
  uint4 raw[kVecs];
#pragma unroll
  for (int i = 0; i < kVecs; ++i) {
    const uint4* q = reinterpret_cast<const uint4*>(p) + i;
    raw[i] = Stream ? __ldcs(q) : *q;
  }
  memcpy(out, raw, sizeof raw);
}

/// A run's (row, sum): `row` is the last row that starts in the run (0: none,
/// the row before it goes on), numbered past the block's first row or, when
/// Counted, the number of rows that start in the run; `sum` the sum of the
/// last row's entries in the run.
template <class T>
struct RowSum {
  int row;
  T sum;
};
/// a then b: b's row when one starts in b (Counted: a's and b's rows), else
/// a's, summed on.
template <bool Counted, class T>
__device__ __forceinline__ RowSum<T> combine(RowSum<T> a, RowSum<T> b) {
  return {Counted ? a.row + b.row : (b.row != 0 ? b.row : a.row),
          b.row != 0 ? b.sum : a.sum + b.sum};
}

template <class T>
__device__ __forceinline__ RowSum<T> shfl_up(RowSum<T> p, int d) {
  return {__shfl_up_sync(kFullMask, p.row, d), __shfl_up_sync(kFullMask, p.sum, d)};
}

/// Inclusive scan of the threads' RowSums over the block, in thread order;
/// *before gets the combination of the threads before this one ({0, 0} for
/// the first). Fixed order: deterministic.
template <bool Counted, class T>
__device__ RowSum<T> block_row_sum_scan(RowSum<T> p, int lane, int warp_id, int* warp_row,
                                        T* warp_sum, RowSum<T>* before) {
  // Phase 1: within the warp; its last lane publishes the warp's total.
#pragma unroll
  for (int d = 1; d < kWarpSize; d <<= 1) {
    const RowSum<T> up = shfl_up(p, d);
    if (lane >= d) p = combine<Counted>(up, p);
  }
  if (lane == kWarpSize - 1) {
    warp_row[warp_id] = p.row;
    warp_sum[warp_id] = p.sum;
  }
  __syncthreads();
  // Phase 2: the first warp scans the warps' totals.
  if (warp_id == 0) {
    RowSum<T> w{lane < kWarpsPerBlock ? warp_row[lane] : 0,
                lane < kWarpsPerBlock ? warp_sum[lane] : T{0}};
#pragma unroll
    for (int d = 1; d < kWarpsPerBlock; d <<= 1) {
      const RowSum<T> up = shfl_up(w, d);
      if (lane >= d) w = combine<Counted>(up, w);
    }
    if (lane < kWarpsPerBlock) {
      warp_row[lane] = w.row;
      warp_sum[lane] = w.sum;
    }
  }
  __syncthreads();
  // Phase 3: the earlier warps' total goes in front.
  RowSum<T> prev = shfl_up(p, 1);
  if (lane == 0) prev = RowSum<T>{0, T{0}};
  if (warp_id > 0) {
    const RowSum<T> w{warp_row[warp_id - 1], warp_sum[warp_id - 1]};
    prev = lane == 0 ? w : combine<Counted>(w, prev);
    p = combine<Counted>(w, p);
  }
  *before = prev;
  return p;
}

/// Nonzero split: block b takes the nonzeros [k0, k0 + tile), k0 = b*tile,
/// tile = kBlock * Items, and each thread the Items consecutive ones from
/// k0 + Items*threadIdx.x, read with 16-byte loads (Vec: both arrays on a
/// 16-byte boundary) and kept in registers with their products. The rows
/// holding nonzeros of the block are block_row[b] = r_first (the row holding
/// nonzero k0) to block_row[b + 1] = r_next (the row holding nonzero
/// k0 + tile; rows at the end): each of the others that is not empty has
/// its first nonzero here and marks it in shared memory with its number
/// past r_first; the empty ones among them are stored as beta*y here. A
/// thread's first row is the last one marked before it, from a block scan of
/// (row, sum) pairs that also gives the sum of that row so far (its
/// carry-in). Each thread stores the rows that end in its nonzeros; the last
/// thread stores the block's last row when it ends in the block, else it is
/// the block's carry-out, added by add_carries_kernel.
///
/// Counted (no row of the matrix is empty): a mark is a byte, 1 where a row
/// starts, and a thread's first row is r_first plus the marks before it (the
/// scan counts them): a quarter of the shared memory, no look at the row
/// after, and no limit on the row numbers (with 32-bit indices also fewer
/// registers in f32: 32 against 37-40). On the H100 this form took 88.6-89.5
/// us on mixed-n2000000 f32 (session 19) where the numbered marks had taken
/// 94.7 (session 18).
template <int Items, bool Stream, bool Vec, bool Counted, class T, class I>
__global__ void __launch_bounds__(kBlock)
    csr_split_kernel(std::int64_t rows, std::int64_t nnz, const I* __restrict__ row_ptr,
                     const I* __restrict__ col, const T* __restrict__ val, const T* __restrict__ x,
                     T alpha, T beta, T* __restrict__ y, const I* __restrict__ block_row,
                     I* __restrict__ carry_row, T* __restrict__ carry_val) {
  constexpr int kTile = kBlock * Items;
  using Mark = std::conditional_t<Counted, unsigned char, int>;
  constexpr int kMarkVecs = kTile * static_cast<int>(sizeof(Mark)) / 16;
  static_assert(Items % 4 == 0, "whole words of marks per thread");
  static_assert(kTile * sizeof(Mark) % 16 == 0, "whole int4s of marks per block");
  // marks[p]: the row starting at nonzero k0 + p, past r_first (Counted: 1)
  __shared__ int4 marks4[kMarkVecs];
  __shared__ int warp_row[kWarpsPerBlock];
  __shared__ T warp_sum[kWarpsPerBlock];
  Mark* const marks = reinterpret_cast<Mark*>(marks4);
  const int tid = threadIdx.x;
  const int lane = tid % kWarpSize;
  const int warp_id = tid / kWarpSize;
  const std::int64_t b = blockIdx.x;
  const std::int64_t k0 = b * std::int64_t{kTile};
  const int nk = static_cast<int>(min(std::int64_t{kTile}, nnz - k0));
  const std::int64_t r_first = block_row[b], r_next = block_row[b + 1];
  const int t0 = tid * Items;

  // Phase 1: the thread's nonzeros (loads issued first); no marks yet.
  I c[Items];
  T v[Items];
  if (Vec && t0 + Items <= nk) {
    load_run<Items, Stream>(col + k0 + t0, c);
    load_run<Items, Stream>(val + k0 + t0, v);
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const bool in = t0 + j < nk;
      if constexpr (Stream) {
        c[j] = in ? __ldcs(col + k0 + t0 + j) : I{0};
        v[j] = in ? __ldcs(val + k0 + t0 + j) : T{0};
      } else {
        c[j] = in ? col[k0 + t0 + j] : I{0};
        v[j] = in ? val[k0 + t0 + j] : T{0};
      }
    }
  }
#pragma unroll
  for (int w = tid; w < kMarkVecs; w += kBlock)
    marks4[w] = int4{0, 0, 0, 0};
  __syncthreads();

  // Phase 2: mark the rows r_first + 1 .. r_next starting here; store the
  // empty ones. (Numbered marks: block 0's r_first is row 0, empty or not;
  // an empty row 0 ends at the first mark with a sum of 0, as in the scalar
  // kernel.)
  for (std::int64_t r = r_first + 1 + tid; r <= r_next && r < rows; r += kBlock) {
    const std::int64_t p = std::int64_t{row_ptr[r]} - k0;
    if constexpr (Counted) {
      if (p < nk) marks[p] = 1;
    } else if (row_ptr[r + 1] == row_ptr[r]) {
      store_scaled(y, r, beta);
    } else if (p < nk) {
      marks[p] = static_cast<int>(r - r_first);
    }
  }
  // Slots past the block's last nonzero read x[0] but hold 0: 0 * x[0] would
  // be NaN where x[0] is infinite. The loads stay unconditional, so the
  // compiler issues them before the barrier (a conditional load went after
  // it: f64 mixed-n2000000 8% slower, 145.4 against 134.0-134.5 us, session
  // 19).
  const bool full = t0 + Items <= nk;
  T prod[Items];
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const T xj = __ldg(x + c[j]);
    prod[j] = full || t0 + j < nk ? v[j] * xj : T{0};
  }
  __syncthreads();
  int mark[Items];
  if constexpr (Counted) {
    const unsigned* const words = reinterpret_cast<const unsigned*>(marks) + t0 / 4;
#pragma unroll
    for (int w = 0; w < Items / 4; ++w) {
      const unsigned m = words[w];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        mark[4 * w + i] = static_cast<int>((m >> (8 * i)) & 0xffu);
    }
  } else {
#pragma unroll
    for (int w = 0; w < Items / 4; ++w) {
      const int4 m = marks4[tid * (Items / 4) + w];
      mark[4 * w] = m.x;
      mark[4 * w + 1] = m.y;
      mark[4 * w + 2] = m.z;
      mark[4 * w + 3] = m.w;
    }
  }

  // Phase 3: the thread's (row, sum) pair, scanned over the block.
  RowSum<T> own{0, T{0}};
#pragma unroll
  for (int j = 0; j < Items; ++j)
    own = combine<Counted>(own, RowSum<T>{mark[j], prod[j]});
  RowSum<T> before;
  const RowSum<T> inclusive =
      block_row_sum_scan<Counted>(own, lane, warp_id, warp_row, warp_sum, &before);

  // Phase 4: the rows that end in this thread, the first with the carry-in.
  std::int64_t row = r_first + before.row;
  T sum = before.sum;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    if (mark[j] != 0) {
      store_axpby(y, row, alpha, sum, beta);
      row = Counted ? row + 1 : r_first + mark[j];
      sum = 0;
    }
    sum += prod[j];
  }

  // Phase 5: the block's last row, stored when it ends here, else carried out.
  if (tid == kBlock - 1) {
    const bool ends = r_next > row;
    if (ends) store_axpby(y, row, alpha, inclusive.sum, beta);
    carry_row[b] = ends ? I{-1} : static_cast<I>(row);
    carry_val[b] = ends ? T{0} : inclusive.sum;
  }
}

// ---- row statistics (Auto) ----------------------------------------------------

constexpr int kStatCounters = 4 + 2 * CsrRowStats::kLengthClasses;

template <class I>
__global__ void __launch_bounds__(kBlock)
    row_stats_kernel(std::int64_t rows, const I* __restrict__ row_ptr, const I* __restrict__ col,
                     unsigned long long* __restrict__ out) {
  constexpr int kClasses = CsrRowStats::kLengthClasses;
  // Phase 1: grid-stride over the rows: longest, empty, spread, the rows and
  // nonzeros of every length class, then the sum of the squared lengths
  // (exact while nnz x longest < 2^64, which the host checks).
  unsigned long long c[kStatCounters] = {};
  for (std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * kBlock) {
    const std::int64_t begin = row_ptr[r], end = row_ptr[r + 1];
    const auto len = static_cast<unsigned long long>(end - begin);
    c[0] = max(c[0], len);
    c[1] += len == 0 ? 1 : 0;
    if (len > 1) c[2] += static_cast<unsigned long long>(col[end - 1] - col[begin]);
    const int k = min(kClasses - 1, 64 - __clzll(static_cast<long long>(len)));
#pragma unroll
    for (int j = 0; j < kClasses; ++j) {
      c[3 + j] += j == k ? 1 : 0;
      c[3 + kClasses + j] += j == k ? len : 0;
    }
    c[3 + 2 * kClasses] += len * len;
  }
  // Phase 2: warp reduction, one atomic per counter and warp (integers:
  // order-independent).
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    c[0] = max(c[0], __shfl_down_sync(kFullMask, c[0], offset));
#pragma unroll
    for (int j = 1; j < kStatCounters; ++j)
      c[j] += __shfl_down_sync(kFullMask, c[j], offset);
  }
  if (threadIdx.x % kWarpSize == 0) {
    atomicMax(out, c[0]);
#pragma unroll
    for (int j = 1; j < kStatCounters; ++j)
      if (c[j] != 0) atomicAdd(out + j, c[j]);
  }
}

}  // namespace

// ---- launchers ----------------------------------------------------------------

int adaptive_width(double mean_row_length) {
  // Each lane takes about 2.5-5 entries, in batches of kUnroll independent
  // loads (measured on an H100, see choose_csr).
  constexpr double kBounds[] = {5, 9.5, 16, 40, 60};
  int v = 1;
  for (const double bound : kBounds) {
    if (mean_row_length < bound) return v;
    v *= 2;
  }
  return v;
}

template <Value T, Index I>
void spmv_csr_scalar(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx) {
  launch_rows<1>(alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_csr_vector(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx) {
  launch_rows<kWarpSize>(alpha, A, x, beta, y, ctx.stream);
}

template <Value T, Index I>
void spmv_csr_adaptive(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext& ctx) {
  const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
  with_constant<32, 1, 2, 4, 8, 16>(
      adaptive_width(mean), [&]<int V>() { launch_rows<V>(alpha, A, x, beta, y, ctx.stream); });
}

template <Value T, Index I>
void spmv_csr_balanced(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y,
                       const ExecContext& ctx) {
  const BalancedPlan<I>& plan = balanced_plan(A, ctx.stream);
  const auto n = static_cast<std::size_t>(plan.warps);
  const Carries<T, I> carries(n, ctx.stream);
  const unsigned grid = grid_size(plan.warps * kWarpSize, kBlock, "csr_balanced_kernel");
  csr_balanced_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      A.rows(), A.nnz(), A.row_ptr().data(), A.col_idx().data(), A.values().data(), x, alpha, beta,
      y, plan.warp_row.data(), plan.chunk, plan.warps, carries.rows(), carries.values());
  check_launch("csr_balanced_kernel");
  add_carries(plan.warps, carries.rows(), carries.values(), A.rows(), alpha, y, ctx.stream);
}

template <int Items, bool Stream, class T, class I>
void launch_merge(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, cudaStream_t stream) {
  const MergePlan<I>& plan = merge_plan(A, std::int64_t{kBlock} * Items, stream);
  const auto n = static_cast<std::size_t>(plan.blocks);
  const Carries<T, I> carries(n, stream);
  const unsigned grid = grid_size(plan.blocks * kBlock, kBlock, "csr_merge_kernel");
  csr_merge_kernel<Items, Stream><<<grid, kBlock, 0, stream>>>(
      A.row_ptr().data(), A.col_idx().data(), A.values().data(), x, alpha, beta, y,
      plan.coords.data(), carries.rows(), carries.values());
  check_launch("csr_merge_kernel");
  add_carries(plan.blocks, carries.rows(), carries.values(), A.rows(), alpha, y, stream);
}

/// Rows with local columns (mean column spread within a tenth of the
/// columns: stencils, FEM, banded), read with default loads by merge path and
/// nonzero split; scattered ones with evict-first loads.
template <Value T, Index I>
bool local_rows(const Csr<T, I>& A) {
  return csr_row_stats(A).mean_spread <= 0.1 * static_cast<double>(A.cols());
}

template <int Items, bool Stream, bool Counted, class T, class I>
void launch_split(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, cudaStream_t stream) {
  const BalancedPlan<I>& plan = block_rows(A, std::int64_t{kBlock} * Items, stream);
  const Carries<T, I> carries(static_cast<std::size_t>(plan.warps), stream);
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const unsigned grid = grid_size(plan.warps * kBlock, kBlock, "csr_split_kernel");
  const auto launch = [&](auto kernel) {
    kernel<<<grid, kBlock, 0, stream>>>(A.rows(), A.nnz(), A.row_ptr().data(), A.col_idx().data(),
                                        A.values().data(), x, alpha, beta, y, plan.warp_row.data(),
                                        carries.rows(), carries.values());
  };
  if (aligned(A.col_idx().data()) && aligned(A.values().data()))
    launch(csr_split_kernel<Items, Stream, true, Counted, T, I>);
  else
    launch(csr_split_kernel<Items, Stream, false, Counted, T, I>);
  check_launch("csr_split_kernel");
  add_carries(plan.warps, carries.rows(), carries.values(), A.rows(), alpha, y, stream);
}

template <Value T, Index I>
void spmv_csr_split(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  // 8 nonzeros per thread in both precisions: 4 in f64 and 16 in f32 were
  // slower on the irregular members (session 18, H100). Scattered rows read
  // with evict-first loads, as merge path. Without empty rows the marks are
  // counted bytes.
  const bool counted = csr_row_stats(A).empty_rows == 0;
  if (!counted && A.rows() > INT_MAX)  // rows numbered in 32 bits in the marks
    throw Unsupported("nonzero_split: " + std::to_string(A.rows()) +
                      " rows with empty ones among them, more than 2^31 - 1; use merge_path");
  if (local_rows(A)) {
    if (counted)
      launch_split<kSplitItems, false, true>(alpha, A, x, beta, y, ctx.stream);
    else
      launch_split<kSplitItems, false, false>(alpha, A, x, beta, y, ctx.stream);
  } else {
    if (counted)
      launch_split<kSplitItems, true, true>(alpha, A, x, beta, y, ctx.stream);
    else
      launch_split<kSplitItems, true, false>(alpha, A, x, beta, y, ctx.stream);
  }
}

template <Value T, Index I>
void spmv_csr_merge(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  // Local rows (mean column spread within a tenth of the columns: stencils,
  // FEM, banded) take 11 path items per thread in f32, scattered ones 7: on
  // the H100 benchmark 11 items were 4-10% faster on the stencils and FEM
  // matrices and 3-10% slower on random, R-MAT and Chung-Lu ones (session
  // 17, this kernel: 11 against 7 items on the local members, f32, 6-13%
  // faster on the 20M-nonzero ones, up to 5% slower on the 1M-nonzero ones). In
  // f64, 11 items need 60-64 registers (4 blocks per SM); 7 were 1.001-1.105x
  // faster on 24 of the 25 local members and equal on road-n7000000 (session
  // 17). Scattered rows also read the
  // column indices and values with evict-first loads (4-10% faster there,
  // 1-15% slower on local rows).
  if (local_rows(A)) {
    launch_merge<kMergeItemsLocal<T>, false>(alpha, A, x, beta, y, ctx.stream);
  } else {
    launch_merge<kMergeItems, true>(alpha, A, x, beta, y, ctx.stream);
  }
}

template <Value T, Index I>
CsrRowStats csr_row_stats(const Csr<T, I>& A) {
  return A.structure_cache().template get<CsrRowStats>([&] {
    CsrRowStats s;
    s.rows = A.rows();
    s.nnz = A.nnz();
    if (s.rows == 0) return s;
    s.mean = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
    // Every stream's earlier work first (the matrix may have been written on
    // a non-blocking stream); once per matrix.
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize(before the row statistics)");
    Array<unsigned long long> out(kStatCounters, Space::Device);
    check(cudaMemset(out.data(), 0, out.bytes()), "cudaMemset(row stats)");
    const unsigned grid =
        std::min<unsigned>(grid_size(s.rows, kBlock, "row_stats_kernel"), 8u * sm_count());
    row_stats_kernel<<<grid, kBlock>>>(s.rows, A.row_ptr().data(), A.col_idx().data(), out.data());
    check_launch("row_stats_kernel");
    const std::vector<unsigned long long> v = out.to_vector();  // synchronous
    s.max_len = static_cast<std::int64_t>(v[0]);
    s.empty_rows = static_cast<std::int64_t>(v[1]);
    s.mean_spread = static_cast<double>(v[2]) / static_cast<double>(s.rows);
    for (int j = 0; j < CsrRowStats::kLengthClasses; ++j) {
      s.class_rows[j] = static_cast<std::int64_t>(v[3 + j]);
      s.class_nnz[j] = static_cast<std::int64_t>(v[3 + CsrRowStats::kLengthClasses + j]);
    }
    // Sum of squares over rows, less rows x mean^2 (the host's row_std, as a
    // population deviation). Exact in 64 bits while nnz x longest < 2^64.
    const double rows = static_cast<double>(s.rows);
    if (static_cast<double>(s.nnz) * static_cast<double>(s.max_len) < 0x1p64) {
      const double sq = static_cast<double>(v[3 + 2 * CsrRowStats::kLengthClasses]);
      s.stddev = std::sqrt(std::max(0.0, sq / rows - s.mean * s.mean));
    } else {
      s.stddev = std::numeric_limits<double>::quiet_NaN();
    }
    return s;
  });
}

// The Auto rule for device CSR. From the cached row statistics, measured over
// the default suite on an H100 (bench/results/, issue 16):
//  1. few rows, none long (rows × 32 lanes within one wave of the GPU,
//     longest row ≤ 1024): vector. Such products are launch-latency bound,
//     and a warp per row costs no extra wave while it shortens the longest
//     chain of dependent loads (the real matrices of up to ~7000 rows: vector
//     1.1-2× faster than scalar or adaptive, never more than 5% slower);
//  2. irregular rows, max > 8 * mean + 64 (power-law, a few dense rows):
//     binned when the matrix fits in the L2 cache (1.14-1.34× merge path on
//     the 1 M-nonzero power-law and mixed members), else a kernel that
//     streams the matrix strictly in order (1.1-1.3× binned on the 16-25 M
//     nonzero R-MAT, Chung-Lu and mixed members): nonzero split when no
//     row is empty (in f64 with the longest row's share below), else merge
//     path. Session 19, same runs: nonzero
//     split (counted marks) was 1.23-1.24× merge path on mixed-n2000000
//     f32 and 1.02× on denserows-n2000000 f32, both without empty rows, but
//     with numbered marks 0.91-0.95× (f32) and 0.87-0.92× (f64) on the
//     large R-MAT and Chung-Lu members, whose rows are 41-59% empty. In f64
//     it was 1.09-1.10× on mixed-n2000000 but 0.94× on denserows-n2000000,
//     which has no empty rows either. On the H200 (sessions 22, 23 and 25,
//     three whole-suite runs, f64): split 1.15× merge path on mixed-n2000000
//     (107.6-107.9 us against 123.8-124.3) and 0.95× on denserows-n2000000
//     (191.6-193.0 against 183.0-183.9). What sets the two apart is the
//     longest row: denserows' four dense rows hold a third of its nonzeros,
//     its longest 8.3% of them, mixed's longest 0.24%. (Split leaves a
//     carry per warp of 256 nonzeros, merge path one per block, so a row
//     across many warps gives split more carries to add: a likely cause,
//     not profiled.) So f64 takes nonzero split when no row is empty and
//     the longest holds at most 1/64 of the nonzeros (kF64SplitMaxShare,
//     between the two members' shares), else merge path;
//  3. long rows (mean > 128) but fewer rows than 64 warps per SM could
//     take: merge path, which splits long rows across blocks, where a warp
//     per row would leave the GPU partly idle;
//  4. otherwise V lanes per row, V = adaptive_width(mean): each lane takes
//     about 2.5-5 of the row's entries in unrolled batches of independent
//     loads. Reported as Scalar when V = 1, Vector when V = 32 and Adaptive
//     in between (it is the same kernel). The bounds (mean < 5, 9.5, 16,
//     40, 60 → V = 1, 2, 4, 8, 16, else 32) come from the H100 benchmark
//     (bench/results/): 5-, 7- and 9-point stencils were fastest with V = 2,
//     random rows of 10 with V = 4 (V = 2: 1.23x slower), FEM rows of 18
//     with V = 4 or 8 (within 2%), the 27-point stencil and FEM rows of 27
//     with V = 8, FEM rows of 54 with V = 16. Except: in f32, V = 8 lanes
//     with fewer than 3 entries each (16 <= mean < 24), on a matrix beyond
//     the L2 cache without empty rows, take nonzero split: on FEM rows of 18
//     (fem-b2-n750, f32) the V-lane kernel took 94.3 us, about as long as in
//     f64 (92.8: bound by its per-row work, not by bytes), nonzero split
//     79.6 and cuSPARSE ALG1 80.6-80.9; with rows of 27 (fem-b3-n500, the
//     27-point stencil) V = 8 stays 3-7% ahead of it, and in f64 V = 8
//     stays ahead on rows of 18 too (92.8 against 103.1; session 19, H100).
//     The evidence is that one matrix, with local columns and 32-bit
//     indices: rows of 16-24 with scattered columns (where nonzero split
//     lost to the V-lane kernel on random rows of 10) or 64-bit indices (no
//     fewer registers) were not measured. And in f32, rows of 5-9.5
//     (V = 2) take one lane per row (Scalar) when there are at least
//     kF32ScalarMinRows of them: on the 5-, 7- and 9-point stencils it was
//     as fast or faster than V = 2 on both GPUs measured (H100, session 19:
//     75.4-79.2 us against 76.6-82.0 on the large ones, 9.3 against 9.8 on
//     stencil3d-7pt-n52; H200, session 22: 56.5-62.2 against 62.6-66.0,
//     7.9-8.3 against 8.6-8.8 on stencil3d-7pt-n52), while in f64 V = 2
//     stays 3-14% ahead of it (H200: 76.9 against 89.3 on
//     stencil3d-7pt-n144). With fewer rows the product is latency-bound
//     and the second lane pays: crack (10240 rows) took 6.3 us with one
//     lane against V = 2's 5.5 (H200), stencil2d-9pt-n330 (108900 rows)
//     8.35 against 8.30. And on a GPU whose memory is fast for its SMs
//     (peak DRAM bandwidth of at least kFastMemoryGbsPerSm per SM), f32
//     rows of 24-60 (V = 8 or 16) take nonzero split on the same terms as
//     the rows of 16-24 (beyond L2, no empty rows): on the H200 (4.8 TB/s
//     peak over 132 SMs, 36.5 GB/s an SM) it was 1.03-1.10x faster than V
//     lanes on fem-b3-n500 (rows of 27), its symmetric twin, fem-b6-n250
//     (54) and the 27-point stencil (26) in each of seven whole-suite runs
//     (sessions 22-27: 59.3-61.3 us against 62.3-66.4), where on the H100
//     (3.35 TB/s by its data sheet, 25 GB/s an SM; session 19, three runs)
//     V lanes were 1.03-1.08x faster (72.2-76.0 against 76.9-79.1). The
//     V-lane kernel's time follows its per-row work, nonzero split's the
//     bytes: more bandwidth per SM favours the split (session 28, the rule
//     on the H200: 1.02-1.06x, csr-rule-...-s28-f97ae1a). Random rows of
//     64 (V = 32) keep the warp a row (1.05x ahead of the split on both
//     GPUs), and f64 keeps V lanes (1.2-1.3x ahead on both);
// Balanced (CSR-I) is never chosen automatically: merge path and binned cover
// its cases without its row-pointer re-reads.
/// Rows from which an f32 matrix of 5-9.5 entries a row takes Scalar (rule
/// 4): one lane a row then fills about half the resident threads of an H100
/// or H200 (132 SMs x 2048 = 270336).
constexpr std::int64_t kF32ScalarMinRows = std::int64_t{1} << 17;

/// Peak DRAM bandwidth per SM (GB/s) from which f32 rows of 24-60 take
/// nonzero split (rule 4): between the H100's 25 (V lanes faster) and the
/// H200's 36.5 (nonzero split faster).
constexpr double kFastMemoryGbsPerSm = 30.0;

/// In f64, irregular rows beyond the L2 cache and without empty rows take
/// nonzero split while the longest row holds at most 1/kF64SplitMaxShare of
/// the nonzeros (rule 2).
constexpr std::int64_t kF64SplitMaxShare = 64;

bool few_warps(const AutoDevice& dev, std::int64_t warps) {
  return dev.resident_threads > 0 && warps * kWarpSize <= dev.resident_threads;
}

bool few_rows(const AutoDevice& dev, std::int64_t rows, std::int64_t max_len) {
  return few_warps(dev, rows) && max_len <= 1024;
}

bool fits_l2(const AutoDevice& dev, std::int64_t bytes) {
  return dev.l2_bytes > 0 && bytes <= dev.l2_bytes;
}

bool few_warps(std::int64_t warps) {
  return few_warps(auto_device(), warps);
}
bool few_rows(std::int64_t rows, std::int64_t max_len) {
  return few_rows(auto_device(), rows, max_len);
}
bool fits_l2(std::int64_t bytes) {
  return fits_l2(auto_device(), bytes);
}

Algorithm choose_csr_on(const AutoDevice& dev, std::int64_t rows, std::int64_t nnz,
                        std::int64_t max_len, std::int64_t empty_rows, std::int64_t bytes,
                        int value_bytes) {
  if (rows == 0 || nnz == 0) return Algorithm::Adaptive;  // nothing runs
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  const bool fits_cache = fits_l2(dev, bytes);
  if (few_rows(dev, rows, max_len)) return Algorithm::Vector;
  if (irregular_rows(mean, max_len)) {
    if (fits_cache) return Algorithm::Binned;
    const bool split = empty_rows == 0 && (value_bytes <= 4 || max_len <= nnz / kF64SplitMaxShare);
    return split ? Algorithm::NonzeroSplit : Algorithm::MergePath;
  }
  if (mean > 128.0 && rows < std::int64_t{64} * dev.sms) return Algorithm::MergePath;
  const int v = adaptive_width(mean);
  if (v == 1 || (v == 2 && value_bytes <= 4 && rows >= kF32ScalarMinRows)) return Algorithm::Scalar;
  if (v == kWarpSize) return Algorithm::Vector;
  const bool fast_memory =
      dev.sms > 0 && dev.peak_memory_gbs >= kFastMemoryGbsPerSm * static_cast<double>(dev.sms);
  if ((v == 8 || v == 16) && (mean < 24.0 || fast_memory) && value_bytes <= 4 && empty_rows == 0 &&
      !fits_cache)
    return Algorithm::NonzeroSplit;
  return Algorithm::Adaptive;
}

Algorithm choose_csr_from(std::int64_t rows, std::int64_t nnz, std::int64_t max_len,
                          std::int64_t empty_rows, std::int64_t bytes, int value_bytes) {
  return choose_csr_on(auto_device(), rows, nnz, max_len, empty_rows, bytes, value_bytes);
}

template <Value T, Index I>
Algorithm choose_csr(const Csr<T, I>& A) {
  if (A.rows() == 0 || A.nnz() == 0) return Algorithm::Adaptive;  // nothing runs
  const CsrRowStats s = csr_row_stats(A);
  return choose_csr_from(s.rows, s.nnz, s.max_len, s.empty_rows,
                         static_cast<std::int64_t>(A.bytes()), static_cast<int>(sizeof(T)));
}

#define SPX_INST(T, I)                                                                       \
  template void spmv_csr_scalar(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);   \
  template void spmv_csr_vector(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);   \
  template void spmv_csr_adaptive(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_csr_balanced(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&); \
  template void spmv_csr_merge(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);    \
  template void spmv_csr_split(T, const Csr<T, I>&, const T*, T, T*, const ExecContext&);    \
  template CsrRowStats csr_row_stats(const Csr<T, I>&);                                      \
  template Algorithm choose_csr(const Csr<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
