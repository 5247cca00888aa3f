// CSR SpMM on the GPU (Yang, Buluç, Owens, "Design principles for sparse
// matrix multiplication on the GPU", 2018): row split (§4.1) and merge-based
// (§4.2). C = alpha*A*B + beta*C, B and C dense with any layout; row-major is
// the fast path (a warp reads a row of B and writes a row of C in one
// coalesced access); column-major B or C use the same kernels with strided,
// uncoalesced accesses (correct, slower).
//
// Widths: for n ≤ 16 a group of W lanes (W = the next power of two ≥ n) works
// on W consecutive columns of B and C, so that narrow products do not leave
// lanes idle; on large matrices of short rows row split gives each row such
// a group (row_group_narrow, 16-byte vectors where B and C allow: two lanes
// a row for f32 at n = 8) instead of a warp. Up to n = 64 (f32) or 32
// (f64), where B and C are row-major and aligned, groups of W = 8 or 16 lanes of 16-byte vectors (4
// floats, 2 doubles) do the same where spmm_vector_groups (spmm.hpp) says so: on the H100 they made
// row split up to 2.4× and merge-based up to 2× faster at n = 32. Otherwise, for n > 16, a warp
// covers a tile of 32·VEC·NV columns (gridDim.y tiles): each lane NV vectors of VEC consecutive
// columns, one 8- or 16-byte load per vector where B and C are row-major and aligned (tiles of 64
// for n ≤ 64, of 128 beyond), else VEC = 1, the paper's one column per lane (tiles of 32). On the
// H100 the vectors made n = 64 about 1.3-1.6× faster than the paper's layout (f64 and f32). That
// lane layout lives in spmm_tile.cuh, shared with the row panel kernel (spmm_panel.cu: a warp per
// panel of R consecutive rows over the union of their columns).
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <vector>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/spmm.hpp"
#include "cuda/spmm_tile.cuh"

namespace spx::cuda {
namespace {

// The lane layout of n > 16 (Strided, LaneTile, with_lane_tile, ...) is
// shared with the row panel kernel (spmm_panel.cu).
using namespace spmm_tile;  // NOLINT(google-build-using-namespace)

/// Columns per lane group: 32 for n > 16, else the next power of two ≥ n.
int group_width(std::int64_t n) {
  if (n > 16) return 32;
  int w = 1;
  while (w < n)
    w *= 2;
  return w;
}

// ---- row split --------------------------------------------------------------

/// Loads of B a lane issues together for kCols columns of a row: at most
/// 16 values (doubling them made merge-based up to 1.7x slower, 1.26x
/// geomean, on the H100 at n = 32-128, session 12: fewer warps fit).
template <int kCols>
constexpr int b_group() {
  return kCols >= 4 ? 4 : 8;
}

/// The nonzeros [begin, end) of A, for one warp and one column tile (n > 16):
/// each batch of up to 32 is loaded one per lane, then broadcast by shuffle
/// in groups of kGroup: a group first issues its kGroup·NV independent
/// loads of B (the last group of a batch predicated), then calls
/// step(k, v_k, this lane's columns of B row c_k) in order of k. All lanes
/// take part in every shuffle; step runs under a warp-uniform condition, so
/// it may shuffle too.
template <int VEC, int NV, class T, class I, class Step>
__device__ __forceinline__ void for_each_nonzero(std::int64_t begin, std::int64_t end,
                                                 const I* __restrict__ col,
                                                 const T* __restrict__ val,
                                                 const LaneB<VEC, NV, T>& lb, Step&& step) {
  constexpr int kCols = VEC * NV;
  constexpr int kGroup = b_group<kCols>();
  const int lane = threadIdx.x % kWarp;
  for (std::int64_t base = begin; base < end; base += kWarp) {
    // Load a batch: one nonzero per lane (lanes past the range hold zeros).
    const int count = static_cast<int>(min(std::int64_t{kWarp}, end - base));
    I c = 0;
    T v = 0;
    if (lane < count) {
      c = load(col + base + lane);
      v = load(val + base + lane);
    }
    for (int t0 = 0; t0 < count; t0 += kGroup) {
      T b[kGroup][kCols];
      load_b_group<kGroup>(
          lb, t0, count, [&](int t) { return __shfl_sync(kFullMask, c, t); }, b);
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const T vt = __shfl_sync(kFullMask, v, t0 + u);
        if (t0 + u < count) step(base + t0 + u, vt, b[u]);
      }
    }
  }
}

/// K warps per row (row_split_parts): warp `part` of the row's K takes the
/// part-th contiguous chunk of [begin, end), in whole steps of `step`
/// nonzeros.
template <int K>
__device__ __forceinline__ void part_of_row(std::int64_t& begin, std::int64_t& end,
                                            std::int64_t step, int part) {
  const std::int64_t chunk = ((end - begin + step - 1) / step + K - 1) / K * step;
  begin = min(end, begin + part * chunk);
  end = min(end, begin + chunk);
}

/// K > 1: the partial sums acc[0..N) of a row's K warps (warp `part` of
/// them, `warp` in the block) meet in shared memory. Returns true in the
/// row's first warp, whose acc then holds the row's sum, added in the order
/// of the warps (deterministic); false in the others and for a row past the
/// matrix (`valid` false). Every thread of the block must call it.
template <int K, int N, class T>
__device__ __forceinline__ bool meet_parts(T (&acc)[N], int warp, int part, bool valid) {
  __shared__ T partial[kWarpsPerBlock][N][kWarp];
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  if (part != 0) {
#pragma unroll
    for (int q = 0; q < N; ++q)
      partial[warp][q][lane] = acc[q];
  }
  __syncthreads();
  if (part != 0 || !valid) return false;
#pragma unroll
  for (int p = 1; p < K; ++p)
#pragma unroll
    for (int q = 0; q < N; ++q)
      acc[q] += partial[warp + p][q][lane];
  return true;
}

/// n > 16: a warp per (row, column tile); the row's nonzeros go through
/// for_each_nonzero, so a lane keeps kGroup·NV loads of B in flight whatever
/// the row length, and a row of A is read once per tile. With K > 1
/// (matrices too small to fill the GPU, row_split_parts in spmm.hpp) K warps
/// of a block share a row: warp p takes the p-th contiguous chunk of the
/// row's batches of 32 nonzeros, and the partial sums meet in shared memory,
/// where the row's first warp adds them in the order of p (deterministic)
/// and stores the row. K is a template parameter: a runtime one cost 4-9
/// registers (H100: a block fewer per SM).
template <int K, int VEC, int NV, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    row_split_tile32(std::int64_t m, std::int64_t n, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  using Tile = LaneTile<VEC, NV>;
  static_assert(kWarpsPerBlock % K == 0, "a block holds whole rows");
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const int part = warp % K;
  const std::int64_t row = blockIdx.x * std::int64_t{kWarpsPerBlock / K} + warp / K;
  if constexpr (K == 1) {
    if (row >= m) return;  // the whole warp leaves together
  }
  const Tile tile(blockIdx.y, n);
  T acc[Tile::kCols];
#pragma unroll
  for (int q = 0; q < Tile::kCols; ++q)
    acc[q] = T{0};
  if (row < m) {  // warp-uniform
    std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
    if constexpr (K > 1) part_of_row<K>(begin, end, kWarp, part);
    for_each_nonzero(begin, end, col, val, LaneB<VEC, NV, T>(B, tile),
                     [&](std::int64_t, T vt, const T(&b)[Tile::kCols]) {
#pragma unroll
                       for (int q = 0; q < Tile::kCols; ++q)
                         acc[q] += vt * b[q];
                     });
  }
  if constexpr (K > 1) {
    if (!meet_parts<K>(acc, warp, part, row < m)) return;
  }
  tile.store(C, row, alpha, acc, beta);
}

/// n > 16 and short rows: as row_split_tile32, but a warp sums a group of
/// R consecutive rows (1 < R < 32). The group's nonzeros are contiguous, so
/// each batch of 32 covers several rows: the sum stores a row of C whenever
/// it crosses the end of a row. The R + 1 row pointers are loaded once, one
/// per lane, and broadcast by shuffle. R rows of a few nonzeros (stencils)
/// thus keep as many loads of B in flight as one long row, and pay the
/// latency of the row pointers and of the column indices once per group
/// instead of once per row.
template <int VEC, int NV, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    row_block_tile32(std::int64_t m, std::int64_t n, int rows_per_warp, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  using Tile = LaneTile<VEC, NV>;
  const int lane = threadIdx.x % kWarp;
  const std::int64_t first =
      (blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp) * rows_per_warp;
  if (first >= m) return;  // the whole warp leaves together
  const Tile tile(blockIdx.y, n);
  const int rows = static_cast<int>(min(std::int64_t{rows_per_warp}, m - first));
  // Lane r ≤ rows holds ptr[first + r].
  const std::int64_t p = lane <= rows ? static_cast<std::int64_t>(load(ptr + first + lane)) : 0;
  const std::int64_t begin = __shfl_sync(kFullMask, p, 0), end = __shfl_sync(kFullMask, p, rows);
  T acc[Tile::kCols];
#pragma unroll
  for (int q = 0; q < Tile::kCols; ++q)
    acc[q] = T{0};
  // The row being summed (r-th of the group) and where it ends; uniform
  // across the warp, so the shuffles in close_row see every lane.
  int r = 0;
  std::int64_t row_end = __shfl_sync(kFullMask, p, 1);
  const auto close_row = [&] {
    tile.store(C, first + r, alpha, acc, beta);
#pragma unroll
    for (int q = 0; q < Tile::kCols; ++q)
      acc[q] = T{0};
    ++r;
    row_end = __shfl_sync(kFullMask, p, min(r + 1, rows));
  };
  for_each_nonzero(begin, end, col, val, LaneB<VEC, NV, T>(B, tile),
                   [&](std::int64_t k, T vt, const T(&b)[Tile::kCols]) {
                     while (k >= row_end)  // rows ending here (empty ones too)
                       close_row();
#pragma unroll
                     for (int q = 0; q < Tile::kCols; ++q)
                       acc[q] += vt * b[q];
                   });
  // The last row, and empty rows at the end of the group.
  while (r < rows)
    close_row();
}

/// Nonzeros a lane of row_split_narrow loads per step (a warp's step:
/// kNarrowUnroll·32/W nonzeros, which the launcher's split_parts counts too).
constexpr int kNarrowUnroll = 4;

/// One step of a lane's walk over a row: the nonzeros k, k + stride, ...,
/// k + (kU - 1)·stride that lie below `end`; all their column indices and
/// values are loaded, then all their vectors of B, before the first product
/// is added to acc (the positions past `end` add 0·0).
template <int kU, int VEC, class T, class I>
__device__ __forceinline__ void strided_step(std::int64_t k, std::int64_t stride, std::int64_t end,
                                             const I* __restrict__ col, const T* __restrict__ val,
                                             const GroupB<T, VEC>& bj, T (&acc)[VEC]) {
  I c[kU];
  T v[kU];
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    const bool in = k + u * stride < end;
    c[u] = in ? load(col + k + u * stride) : I{0};
    v[u] = in ? load(val + k + u * stride) : T{0};
  }
  T b[kU][VEC];
#pragma unroll
  for (int u = 0; u < kU; ++u) {
    if (k + u * stride < end) {
      bj(c[u], b[u]);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e)
        b[u][e] = T{0};
    }
  }
#pragma unroll
  for (int u = 0; u < kU; ++u)
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] += v[u] * b[u][e];
}

/// Grouped lanes (n ≤ 16, and n ≤ 32/64 in f64/f32 with vectors where
/// spmm_vector_groups says so; with_groups): warp per row, split into 32/W slots of W lanes;
/// slot s takes the row's nonzeros s, s + 32/W, ...; lane (s, j) accumulates
/// columns j·VEC .. j·VEC + VEC - 1 (one VEC-wide load of B per nonzero);
/// the slots are then summed with xor shuffles. With K > 1 (matrices too
/// small to fill the GPU, row_split_parts) K warps of a block share a row,
/// each taking a contiguous chunk of its steps of kU·32/W nonzeros, and their
/// sums meet in shared memory in the order of the warps (deterministic).
template <int K, int W, int VEC, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock)
    row_split_narrow(std::int64_t m, std::int64_t n, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  static_assert(kWarpsPerBlock % K == 0, "a block holds whole rows");
  constexpr int kSlots = kWarp / W;
  constexpr int kU = kNarrowUnroll;  // nonzeros per lane and step
  const int warp = static_cast<int>(threadIdx.x / kWarp);
  const int lane = threadIdx.x % kWarp;
  const int slot = lane / W;
  const int j = (lane % W) * VEC;  // the lane's first column
  const bool active = j < n;       // n % VEC == 0: all VEC columns or none
  const int part = warp % K;
  const std::int64_t row = blockIdx.x * std::int64_t{kWarpsPerBlock / K} + warp / K;
  if constexpr (K == 1) {
    if (row >= m) return;  // the whole warp leaves together
  }
  T acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = T{0};
  if (row < m) {  // warp-uniform
    std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
    if constexpr (K > 1) part_of_row<K>(begin, end, kU * kSlots, part);
    // Accumulate this slot's share of the row: steps of kU nonzeros per
    // lane, all loads of a step issued before its first product (the last
    // step predicated).
    const GroupB<T, VEC> bj(B, active ? j : 0);
    if (active) {
      for (std::int64_t k = begin + slot; k < end; k += kU * kSlots)
        strided_step<kU>(k, kSlots, end, col, val, bj, acc);
    }
    // Reduce across slots (lanes j, j + W, j + 2W, ... hold the same columns).
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] = across_groups_sum<W>(acc[e]);
  }
  if constexpr (K > 1) {
    if (!meet_parts<K>(acc, warp, part, row < m)) return;
  }
  if (slot == 0 && active) store_c_vec<VEC>(C, row, j, alpha, acc, beta);
}

/// Nonzeros a lane of row_group_narrow loads per step.
constexpr int kGroupUnroll = 4;

/// n ≤ 16 on short rows (spmm_row_groups, spmm.hpp): a group of W lanes per row,
/// lane j holding columns j·VEC .. j·VEC + VEC - 1 (VEC = 4 floats or 2
/// doubles: B and C take 16-byte vectors; W = n / VEC lanes rounded up to a
/// power of two: 2 for f32 at n = 8), 32/W rows per warp. Each group walks its own row in steps
/// of kGroupUnroll nonzeros whose loads are all issued before the first
/// product; the lanes of a group read the same column indices and values
/// (one request per warp). No shuffles and no partial sums: where row split's
/// warp per row leaves most of its 32/W slots idle on rows of a few nonzeros
/// and merge-based pays for its row ends, carry-outs and fix-up, a group
/// does a row's work and nothing else. Rows of very different lengths leave
/// the groups of a warp waiting for the longest (Auto gives such matrices to
/// merge-based).
template <int W, int VEC, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock)
    row_group_narrow(std::int64_t m, std::int64_t n, const I* __restrict__ ptr,
                     const I* __restrict__ col, const T* __restrict__ val, Strided<const T> B,
                     T alpha, T beta, Strided<T> C) {
  constexpr int kU = kGroupUnroll;
  const std::int64_t row = (blockIdx.x * std::int64_t{kSpmmBlock} + threadIdx.x) / W;
  const int j = static_cast<int>(threadIdx.x % W) * VEC;  // the lane's first column
  if (row >= m || j >= n) return;  // no shuffles below: lanes leave on their own
  T acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = T{0};
  const std::int64_t begin = load(ptr + row), end = load(ptr + row + 1);
  const GroupB<T, VEC> bj(B, j);
  for (std::int64_t k = begin; k < end; k += kU)
    strided_step<kU>(k, 1, end, col, val, bj, acc);
  store_c_vec<VEC>(C, row, j, alpha, acc, beta);
}

// ---- merge-based ------------------------------------------------------------

/// Nonzeros per unit (a group of W lanes): four batches of W, at least 32.
template <int W>
constexpr std::int64_t unit_nnz() {
  return W * 4 < 32 ? 32 : W * 4;
}

/// Row ends staged in shared memory per block of merge_based: one per two
/// nonzeros of the block, at most 512, plus one (W ≥ 4: 257 or 513, so that
/// rows of mean length ≥ 2 are all staged; W = 2, 1: 513, mean length ≥ 4
/// or 8). Rows past the staged ones read ptr from global memory.
template <int W, std::int64_t U = unit_nnz<W>()>
constexpr int merge_stage() {
  constexpr std::int64_t block_nnz = kSpmmBlock / W * U;
  return static_cast<int>(block_nnz / 2 < 512 ? block_nnz / 2 : 512) + 1;
}

/// Carry runs of at most this many units are summed by one thread per
/// column; longer ones by a block.
constexpr std::int64_t kShortRun = 32;
constexpr int kFixupBlock = 256;

/// part[u] = the first row that starts at or after nonzero u*unit_nnz (the
/// first row unit u owns); part[units] = m.
template <class I>
__global__ void merge_partition(std::int64_t m, std::int64_t units, std::int64_t per_unit,
                                const I* __restrict__ ptr, I* __restrict__ part) {
  const std::int64_t u = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (u > units) return;
  if (u == units) {
    part[u] = static_cast<I>(m);
    return;
  }
  // Lower bound of k0 in ptr[0..m).
  part[u] = static_cast<I>(lower_bound_index(ptr, 0, m, u * per_unit));
}

/// The units whose carry-out belongs to row r: those whose range starts
/// strictly inside the row, [ptr[r]/per_unit + 1, ceil(ptr[r+1]/per_unit)).
/// Each row with a carry-out has one such run of consecutive units.
struct UnitRun {
  std::int64_t begin, end;
};

template <class I>
__device__ __forceinline__ UnitRun carry_units(const I* ptr, std::int64_t r,
                                               std::int64_t per_unit) {
  const std::int64_t b = load(ptr + r), e = load(ptr + r + 1);
  return {b / per_unit + 1, (e + per_unit - 1) / per_unit};
}

/// Selects the rows whose run of carry-out units has a length in [lo, hi].
template <class I>
struct RunLengthIn {
  const I* ptr;
  std::int64_t per_unit, lo, hi;
  __device__ __forceinline__ bool operator()(const I& r) const {
    const UnitRun run = carry_units(ptr, r, per_unit);
    const std::int64_t len = run.end - run.begin;
    return len >= lo && len <= hi;
  }
};

/// Grouped lanes (n ≤ 16, and f32 n ≤ 32 with vectors, spmm_vector_groups;
/// else merge_based_tile32). Unit u, a group of W < 32 lanes, each holding
/// VEC consecutive columns, takes nonzeros [u*U, (u+1)*U) (U = unit_nnz<W>,
/// or twice that for the vector groups of large matrices,
/// spmm_vector_units_doubled). Rows that start in the range are the unit's
/// own: it writes them to C (the last one possibly partial;
/// later units' carry-outs complete it). Nonzeros before the first own row
/// belong to the row the range starts inside: their sum is the unit's
/// carry-out, saved in carry[u*n + j].
///
/// The block's units cover a contiguous range of rows, part[first unit] ..
/// part[last unit + 1]; their row ends (ptr) are staged in shared memory
/// first, so that the segmented sum finds the end of the next row with a
/// shared load instead of a dependent global one.
template <int W, int VEC, std::int64_t U, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock)
    merge_based(std::int64_t m, std::int64_t n, std::int64_t nnz, std::int64_t units,
                const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                const I* __restrict__ part, Strided<const T> B, T alpha, T beta, Strided<T> C,
                T* __restrict__ carry) {
  static_assert(W < kWarp, "W = 32 is merge_based_tile32");
  constexpr std::int64_t kUnitNnz = U;
  static_assert(U % W == 0, "a unit is whole batches");
  constexpr int kBatches = static_cast<int>(kUnitNnz / W);
  constexpr int kUnitsPerBlock = kSpmmBlock / W;
  constexpr int kStage = merge_stage<W, U>();
  // Nonzeros whose loads of B are issued together: the whole batch with
  // scalar loads (ILP W), 8 with vectors (registers).
  constexpr int kChunk = VEC == 1 || W < 8 ? W : 8;
  __shared__ I ends[kStage];        // ends[i] = ptr[block_first + i]
  const int sub = threadIdx.x % W;  // lane within the group
  const std::int64_t unit0 = blockIdx.x * std::int64_t{kUnitsPerBlock};  // < units
  const std::int64_t unit = unit0 + threadIdx.x / W;
  const std::int64_t j = sub * VEC;  // the lane's first column
  const bool active = j < n;         // n % VEC == 0: all VEC columns or none
  const GroupB<T, VEC> bj(B, active ? j : 0);
  const bool valid = unit < units;  // groups past the end only join the shuffles
  // Positions below are relative to the unit's first nonzero k0, as ints:
  // the unit has `count` ≤ kUnitNnz nonzeros, and row ends past it are
  // clamped to kUnitNnz.
  const std::int64_t k0 = unit * kUnitNnz;
  const int count = valid ? static_cast<int>(min(kUnitNnz, nnz - k0)) : 0;

  // Stage ptr[block_first .. block_last] (as much as fits): coalesced,
  // independent loads.
  const std::int64_t block_first = load(part + unit0);
  const int staged = static_cast<int>(
      min(std::int64_t{load(part + min(unit0 + kUnitsPerBlock, units))} - block_first + 1,
          std::int64_t{kStage}));
  for (int i = threadIdx.x; i < staged; i += kSpmmBlock)
    ends[i] = load(ptr + block_first + i);
  const std::int64_t first = valid ? load(part + unit) : 0;
  __syncthreads();
  // ptr[r + 1] - k0 (r + 1 ≥ block_first, r < m), at most kUnitNnz; staged,
  // else from global memory.
  const auto end_of = [&](std::int64_t r) -> int {
    const std::int64_t i = r + 1 - block_first;
    const std::int64_t e = i < staged ? ends[i] : load(ptr + r + 1);
    return static_cast<int>(min(e - k0, kUnitNnz));
  };

  // Where the range starts: inside a row begun earlier (head: carry-out) or
  // at the start of the first own row. row_end = end of `row`, next_end =
  // end of the next row, read ahead so that a row change waits for no load.
  std::int64_t row = 0;
  int row_end = 0, next_end = 0;
  bool head = false;
  if (valid) {
    head = end_of(first - 1) > 0;
    row = head ? first - 1 : first;
    row_end = end_of(row);
    next_end = row + 1 < m ? end_of(row + 1) : static_cast<int>(kUnitNnz);
  }
  // Close the current row: the head goes to the carry-out, own rows to C.
  T acc[VEC];
#pragma unroll
  for (int e = 0; e < VEC; ++e)
    acc[e] = T{0};
  const auto close_row = [&] {
    if (active) {
      if (head) {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          carry[unit * n + j + e] = acc[e];
      } else {
        store_c_vec<VEC>(C, row, j, alpha, acc, beta);
      }
    }
    head = false;
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      acc[e] = T{0};
  };

  // The same number of batches for every group of the warp (the shuffles
  // need all 32 lanes); loads past the unit's nonzeros are skipped.
  for (int base = 0; base < kBatches * W; base += W) {
    // Load a batch: one nonzero per lane of the group.
    I c = 0;
    T v = 0;
    if (base + sub < count) {
      c = load(col + k0 + base + sub);
      v = load(val + k0 + base + sub);
    }
#pragma unroll
    for (int t0 = 0; t0 < W; t0 += kChunk) {
      // Products: broadcast each nonzero within the group; independent
      // loads of B (ILP kChunk).
      T p[kChunk][VEC];
#pragma unroll
      for (int t = 0; t < kChunk; ++t) {
        const I ct = __shfl_sync(kFullMask, c, t0 + t, W);
        const T vt = __shfl_sync(kFullMask, v, t0 + t, W);
        if (active && base + t0 + t < count) {
          bj(ct, p[t]);
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            p[t][e] *= vt;
        } else {
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            p[t][e] = T{0};
        }
      }
      // Segmented sum: before a nonzero, close every row that ends before
      // it (empty rows included: they get beta*C). No shuffles in here: the
      // groups of a warp take different paths when W < 32.
#pragma unroll
      for (int t = 0; t < kChunk; ++t) {
        const int k = base + t0 + t;
        if (k < count) {
          while (k >= row_end) {
            close_row();
            ++row;
            row_end = next_end;
            next_end = row + 1 < m ? end_of(row + 1) : static_cast<int>(kUnitNnz);
          }
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            acc[e] += p[t][e];
        }
      }
    }
  }
  if (!valid) return;
  // Close the row the range ends in, then the empty rows after it that this
  // unit owns (only the last unit has any: the trailing empty rows).
  close_row();
  const std::int64_t last_owned = load(part + unit + 1);
  for (++row; row < last_owned; ++row)
    close_row();
}

/// n > 16 without vector groups: merge-based with a warp per unit of
/// unit_nnz<32>() nonzeros and a column tile per blockIdx.y (vectors per
/// lane as row_split_tile32). A
/// batch of 32 nonzeros is loaded one per lane and broadcast by shuffle in
/// groups whose loads of B are issued together (load_b_group); the sum
/// stores a row of C after a nonzero whose bit in RowEndBits is set (one
/// word per batch: a test of a warp-uniform register, not a comparison of
/// every position with the next row end), closing the empty rows after it
/// too; the head (the part of a row begun in an earlier unit) goes to the
/// carry-outs, row-major units × n. Row ends are read only when a row
/// closes, 32 at a time, one per lane, and broadcast by shuffle.
/// On the H100 (session 12, bench/results/spmm-lean-*) the bits and
/// LaneB's addressing made this kernel 1.13× faster (geomean over 60
/// cases) than comparing positions with row ends.
template <int VEC, int NV, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    merge_based_tile32(std::int64_t m, std::int64_t n, std::int64_t nnz, std::int64_t units,
                       const I* __restrict__ ptr, const I* __restrict__ col,
                       const T* __restrict__ val, const I* __restrict__ part,
                       const std::uint32_t* __restrict__ row_ends, Strided<const T> B, T alpha,
                       T beta, Strided<T> C, T* __restrict__ carry) {
  using Tile = LaneTile<VEC, NV>;
  constexpr std::int64_t kUnitNnz = unit_nnz<kWarp>();
  static_assert(kUnitNnz % kWarp == 0, "a batch is one word of RowEndBits");
  constexpr int G = b_group<Tile::kCols>();
  const int lane = threadIdx.x % kWarp;
  const std::int64_t unit = blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp;
  if (unit >= units) return;  // the whole warp leaves together
  const Tile tile(blockIdx.y, n);
  const LaneB<VEC, NV, T> lb(B, tile);
  const Strided<T> carry_rows{carry, n, 1};
  const std::int64_t k0 = unit * kUnitNnz, k1 = min(k0 + kUnitNnz, nnz);
  // The unit owns the rows [first, last): those that start in [k0, k1)
  // (the last unit: also the empty rows at the end of the matrix).
  const std::int64_t first = load(part + unit), last = load(part + unit + 1);
  // Row ends ptr[wb + lane], a window of 32 rows reloaded when passed; only
  // read when a row closes.
  std::int64_t wb = 0;
  std::int64_t ends = 0;
  const auto end_of = [&](std::int64_t r) {  // ptr[r + 1], r < m; warp-uniform r
    if (r + 1 - wb >= kWarp) {
      wb = r + 1;
      ends = load(ptr + min(wb + lane, m));
    }
    return __shfl_sync(kFullMask, ends, static_cast<int>(r + 1 - wb));
  };
  // Where the range starts: inside a row begun earlier (head: carry-out) or
  // at the start of the first own row.
  bool head = load(ptr + first) > k0;
  std::int64_t row = head ? first - 1 : first;
  wb = row + 1;
  ends = load(ptr + min(wb + lane, m));
  T acc[Tile::kCols];
#pragma unroll
  for (int q = 0; q < Tile::kCols; ++q)
    acc[q] = T{0};
  const auto close_row = [&] {
    if (head) {
      tile.store(carry_rows, unit, T{1}, acc, T{0});
    } else {
      tile.store(C, row, alpha, acc, beta);
    }
#pragma unroll
    for (int q = 0; q < Tile::kCols; ++q)
      acc[q] = T{0};
    head = false;
  };
  // Close the empty own rows that end at or before position `pos` (after
  // the row before them closed, or at the start of the range).
  const auto close_empty = [&](std::int64_t pos) {
    while (row < last && end_of(row) <= pos) {
      close_row();
      ++row;
    }
  };
  close_empty(k0);
  for (std::int64_t base = k0; base < k1; base += kWarp) {
    const int count = static_cast<int>(min(std::int64_t{kWarp}, k1 - base));
    I c = 0;
    T v = 0;
    if (lane < count) {
      c = load(col + base + lane);
      v = load(val + base + lane);
    }
    // The word of this batch (positions past nnz hold no bits: RowEndBits is
    // zeroed before the row ends are marked, so a partial last batch needs
    // no mask).
    const std::uint32_t bits = load(row_ends + base / kWarp);
#pragma unroll 1
    for (int t0 = 0; t0 < count; t0 += G) {
      T b[G][Tile::kCols];
      load_b_group<G>(
          lb, t0, count, [&](int t) { return __shfl_sync(kFullMask, c, t); }, b);
#pragma unroll
      for (int u = 0; u < G; ++u) {
        const T vt = __shfl_sync(kFullMask, v, t0 + u);
#pragma unroll
        for (int q = 0; q < Tile::kCols; ++q)
          acc[q] += vt * b[u][q];
        if ((bits >> (t0 + u)) & 1u) {  // nonzero base + t0 + u ends the row
          close_row();
          ++row;
          close_empty(base + t0 + u + 1);
        }
      }
    }
  }
  // The row the range ends in, if it is still open (it continues into the
  // next unit: partial), then the empty rows after it that this unit owns.
  if (row < last) {
    close_row();
    for (++row; row < last; ++row)
      close_row();
  }
}

/// Adds the carry-outs to C, one run of units (one row) at a time, in a
/// fixed order (deterministic, no atomics). runs[0, long_runs) are the rows
/// with runs longer than kShortRun units, the rest the short ones.
/// Blocks [0, long_runs): a block per (long run, tile of W columns); its
/// kFixupBlock/W slots take strided shares of the run's units, then a tree
/// in shared memory sums the slots. Later blocks: a thread per (short run,
/// column), summing the run's ≤ kShortRun units in order with independent
/// loads.
template <int W, class T, class I>
__global__ void __launch_bounds__(kFixupBlock)
    merge_fixup(std::int64_t n, std::int64_t per_unit, std::int64_t long_runs,
                std::int64_t runs_count, const I* __restrict__ runs, const I* __restrict__ ptr,
                const T* __restrict__ carry, T alpha, Strided<T> C) {
  constexpr int kSlots = kFixupBlock / W;
  constexpr int kU = 4;  // loads in flight per thread
  const int jj = threadIdx.x % W;
  const int slot = threadIdx.x / W;
  const std::int64_t j = blockIdx.y * std::int64_t{W} + jj;
  const bool active = j < n;
  if (blockIdx.x < long_runs) {
    __shared__ T sums[kFixupBlock];
    const std::int64_t row = load(runs + blockIdx.x);
    const UnitRun run = carry_units(ptr, row, per_unit);
    T sum = 0;
    if (active) {
      for (std::int64_t u = run.begin + slot; u < run.end; u += kU * kSlots) {
        T c[kU];
#pragma unroll
        for (int q = 0; q < kU; ++q)
          c[q] = u + q * kSlots < run.end ? load(carry + (u + q * kSlots) * n + j) : T{0};
#pragma unroll
        for (int q = 0; q < kU; ++q)
          if (u + q * kSlots < run.end) sum += c[q];
      }
    }
    sums[threadIdx.x] = sum;
#pragma unroll
    for (int half = kSlots / 2; half > 0; half /= 2) {
      __syncthreads();
      if (slot < half) sums[threadIdx.x] += sums[threadIdx.x + half * W];
    }
    if (slot == 0 && active) C.data[row * C.rs + j * C.cs] += alpha * sums[threadIdx.x];
    return;
  }
  const std::int64_t r = (blockIdx.x - long_runs) * std::int64_t{kSlots} + slot + long_runs;
  if (r >= runs_count || !active) return;
  const std::int64_t row = load(runs + r);
  const UnitRun run = carry_units(ptr, row, per_unit);
  T sum = 0;
  for (std::int64_t u = run.begin; u < run.end; u += kU) {
    T c[kU];
#pragma unroll
    for (int q = 0; q < kU; ++q)
      c[q] = u + q < run.end ? load(carry + (u + q) * n + j) : T{0};
#pragma unroll
    for (int q = 0; q < kU; ++q)
      if (u + q < run.end) sum += c[q];
  }
  C.data[row * C.rs + j * C.cs] += alpha * sum;
}

/// Sets bit ptr[r + 1] - 1 for every nonempty row r (RowEndBits).
template <class I>
__global__ void mark_row_ends(std::int64_t m, const I* __restrict__ ptr,
                              std::uint32_t* __restrict__ words) {
  const std::int64_t r = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (r >= m) return;
  const std::int64_t b = load(ptr + r), e = load(ptr + r + 1);
  if (e > b) atomicOr(words + (e - 1) / 32, 1u << ((e - 1) % 32));
}

template <class T, class I>
const RowEndBits& row_end_bits(const Csr<T, I>& A, const ExecContext& ctx) {
  return A.structure_cache().template get<RowEndBits>([&] {
    RowEndBits bits;
    const std::int64_t words = std::max<std::int64_t>(1, ceil_div(A.nnz(), 32));
    bits.words = Array<std::uint32_t>(static_cast<std::size_t>(words), Space::Device);
    check(cudaMemsetAsync(bits.words.data(), 0, words * sizeof(std::uint32_t), ctx.stream),
          "cudaMemsetAsync (row end bits)");
    if (A.rows() > 0) {
      mark_row_ends<I>
          <<<static_cast<unsigned>(ceil_div(A.rows(), kBlock)), kBlock, 0, ctx.stream>>>(
              A.rows(), A.row_ptr().data(), bits.words.data());
      check_launch("mark_row_ends");
    }
    check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (row end bits)");
    return bits;
  });
}

/// Builds the partition and the lists of carry runs, on `stream`, and waits
/// for them (later calls may use other streams).
template <class I>
MergePartition<I> build_merge_partition(std::int64_t m, std::int64_t nnz, const I* ptr,
                                        std::int64_t per_unit, cudaStream_t stream) {
  MergePartition<I> p;
  p.units = ceil_div(nnz, per_unit);
  p.part = Array<I>(static_cast<std::size_t>(p.units + 1), Space::Device);
  merge_partition<I><<<static_cast<unsigned>(ceil_div(p.units + 1, kBlock)), kBlock, 0, stream>>>(
      m, p.units, per_unit, ptr, p.part.data());
  check_launch("merge_partition");

  // Rows with a carry-out: at most one per unit, each with ≥ 1 unit.
  const std::int64_t capacity = std::max<std::int64_t>(1, std::min(m, p.units));
  const StreamScratch selected(2 * static_cast<std::size_t>(capacity) * sizeof(I), stream);
  const StreamScratch counts(2 * sizeof(std::int64_t), stream);
  I* const long_out = selected.as<I>();
  I* const short_out = long_out + capacity;
  const auto select = [&](I* out, std::int64_t* count, std::int64_t lo, std::int64_t hi) {
    const RunLengthIn<I> pred{ptr, per_unit, lo, hi};
    with_cub_temp("cub::DeviceSelect::If (SpMM carry runs)", stream,
                  [&](void* temp, std::size_t& bytes) {
                    return cub::DeviceSelect::If(temp, bytes, thrust::counting_iterator<I>(0), out,
                                                 count, m, pred, stream);
                  });
  };
  select(long_out, counts.as<std::int64_t>(), kShortRun + 1, std::numeric_limits<I>::max());
  select(short_out, counts.as<std::int64_t>() + 1, 1, kShortRun);
  std::int64_t host_counts[2] = {0, 0};
  check(cudaMemcpyAsync(host_counts, counts.as<std::int64_t>(), sizeof host_counts,
                        cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (SpMM carry run counts)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (merge partition)");
  p.long_runs = host_counts[0];
  p.runs = host_counts[0] + host_counts[1];
  p.run_rows = Array<I>(static_cast<std::size_t>(p.runs), Space::Device);
  if (p.long_runs > 0)
    check(cudaMemcpyAsync(p.run_rows.data(), long_out, p.long_runs * sizeof(I),
                          cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync (SpMM carry runs)");
  if (host_counts[1] > 0)
    check(cudaMemcpyAsync(p.run_rows.data() + p.long_runs, short_out, host_counts[1] * sizeof(I),
                          cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync (SpMM carry runs)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (merge partition)");
  return p;
}

template <class T, class I>
const MergePartition<I>& merge_partition_of(const Csr<T, I>& A, std::int64_t per_unit,
                                            const ExecContext& ctx) {
  return A.structure_cache().template get<MergePartition<I>>(per_unit, [&] {
    return build_merge_partition<I>(A.rows(), A.nnz(), A.row_ptr().data(), per_unit, ctx.stream);
  });
}

/// Merge-based with groups of W lanes of V columns (W = 32: the tiles of
/// merge_based_tile32), units of U nonzeros.
template <int W, int V, std::int64_t U, class T, class I>
void launch_merge_units(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                        std::int64_t n, const ExecContext& ctx) {
  constexpr std::int64_t kUnitNnz = U;
  // The fix-up's column tile: W, or 32 where the groups hold vectors.
  constexpr int kFixW = V == 1 ? W : kWarp;
  const MergePartition<I>& p = merge_partition_of(A, kUnitNnz, ctx);
  const StreamScratch carry(static_cast<std::size_t>(p.units * n) * sizeof(T), ctx.stream);
  const auto tiles = static_cast<unsigned>(ceil_div(n, kFixW));  // 1 when W < 32, V = 1
  if constexpr (W == kWarp) {
    with_lane_tile<T>(B, C, n, [&]<int VEC, int NV>() {
      const RowEndBits& bits = row_end_bits(A, ctx);
      const dim3 grid(static_cast<unsigned>(ceil_div(p.units, kWarpsPerBlock)),
                      static_cast<unsigned>(ceil_div(n, LaneTile<VEC, NV>::kWidth)));
      merge_based_tile32<VEC, NV, T, I><<<grid, kSpmmBlock, 0, ctx.stream>>>(
          A.rows(), n, A.nnz(), p.units, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
          p.part.data(), bits.words.data(), B, alpha, beta, C, carry.as<T>());
      check_launch("merge_based_tile32");
    });
  } else {
    const dim3 grid(static_cast<unsigned>(ceil_div(p.units * W, kSpmmBlock)));
    merge_based<W, V, U, T, I><<<grid, kSpmmBlock, 0, ctx.stream>>>(
        A.rows(), n, A.nnz(), p.units, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
        p.part.data(), B, alpha, beta, C, carry.as<T>());
    check_launch("merge_based");
  }
  if (p.runs == 0) return;
  const std::int64_t short_blocks = ceil_div(p.runs - p.long_runs, kFixupBlock / kFixW);
  merge_fixup<kFixW, T, I><<<dim3(static_cast<unsigned>(p.long_runs + short_blocks), tiles),
                             kFixupBlock, 0, ctx.stream>>>(n, kUnitNnz, p.long_runs, p.runs,
                                                           p.run_rows.data(), A.row_ptr().data(),
                                                           carry.as<T>(), alpha, C);
  check_launch("merge_fixup");
}

template <int W, int V, class T, class I>
void launch_merge(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                  std::int64_t n, const ExecContext& ctx) {
  if constexpr (V == 1) {
    launch_merge_units<W, V, unit_nnz<W>()>(alpha, A, B, beta, C, n, ctx);
  } else {
    static_assert(W == 8, "spmm_vector_groups gives merge-based only groups of 8 lanes");
    if (spmm_vector_units_doubled(A.nnz())) {
      launch_merge_units<W, V, 2 * unit_nnz<W>()>(alpha, A, B, beta, C, n, ctx);
    } else {
      launch_merge_units<W, V, unit_nnz<W>()>(alpha, A, B, beta, C, n, ctx);
    }
  }
}

/// Row groups for n > 16: rows with a mean of at most kRowBlockMean
/// nonzeros go to row_block_tile32 in groups of R rows, R the largest power
/// of two ≤ 16 with R·mean ≤ kRowBlockNnz / 2; longer rows to
/// row_split_tile32, a warp per row. From the H100 at n = 64 (f64): groups
/// of ~64-128 nonzeros were 10-48% faster than a warp per row on the 2-D/3-D
/// stencils with 5-9 nonzeros per row and the 8-band matrix, about equal on
/// the random matrix of 10 per row, and 16-21% slower on the 27-point stencil
/// and FEM b = 6 (26 and 54 per row).
constexpr double kRowBlockMean = 20;
constexpr double kRowBlockNnz = 128;

/// R also stays small enough to leave at least kMinWarpsPerSm warps per SM:
/// on a matrix of a few thousand rows (the density suite's 8192) groups would
/// leave most of the GPU idle.
constexpr std::int64_t kMinWarpsPerSm = 32;

int rows_per_warp(std::int64_t rows, std::int64_t nnz) {
  const double mean = static_cast<double>(nnz) / static_cast<double>(rows);
  if (mean > kRowBlockMean) return 1;
  const std::int64_t min_warps = kMinWarpsPerSm * sm_count();
  int r = 1;
  while (r < 16 && 2 * r * mean <= kRowBlockNnz && rows / (2 * r) >= min_warps)
    r *= 2;
  return r;
}

/// Warps of `kernel` (launched in blocks of kSpmmBlock) the current GPU
/// holds at once, asked once per kernel and device (a process may hold GPUs
/// of different architectures).
template <auto kernel>
std::int64_t kernel_resident() {
  static std::mutex mutex;
  static std::vector<std::int64_t> per_device;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  const auto d = static_cast<std::size_t>(device);
  const std::lock_guard lock(mutex);
  if (per_device.size() <= d) per_device.resize(d + 1, 0);
  if (per_device[d] == 0)
    per_device[d] = resident_warps(reinterpret_cast<const void*>(kernel), kSpmmBlock, "row split");
  return per_device[d];
}

/// Warps per row for row split (row_split_parts, spmm.hpp) with the K = 2
/// and K = 4 instances `k2`, `k4` of its kernel, `step` nonzeros a warp
/// takes per step and splits from `min_steps`: the cached row statistics
/// are read only for matrices whose rows × tiles × 2 warps fit the GPU at
/// once, where they decide.
template <auto k2, auto k4, class T, class I>
int split_parts(const Csr<T, I>& A, std::int64_t tiles, std::int64_t step, std::int64_t min_steps) {
  const std::int64_t resident2 = kernel_resident<k2>();
  if (A.rows() * tiles * 2 > resident2 || A.nnz() == 0) return 1;
  return row_split_parts(A.rows(), tiles, csr_row_stats(A).max_len, step, min_steps, resident2,
                         kernel_resident<k4>());
}

template <int VEC, int NV, class T, class I>
void launch_tile32(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                   std::int64_t n, const ExecContext& ctx) {
  const std::int64_t tiles = ceil_div(n, LaneTile<VEC, NV>::kWidth);
  const int parts =
      split_parts<row_split_tile32<2, VEC, NV, T, I>, row_split_tile32<4, VEC, NV, T, I>>(A, tiles,
                                                                                          kWarp, 2);
  if (parts > 1) {
    const dim3 grid(static_cast<unsigned>(ceil_div(A.rows(), kWarpsPerBlock / parts)),
                    static_cast<unsigned>(tiles));
    with_constant<4, 2>(parts, [&]<int K>() {
      row_split_tile32<K, VEC, NV, T, I>
          <<<grid, kSpmmBlock, 0, ctx.stream>>>(A.rows(), n, A.row_ptr().data(), A.col_idx().data(),
                                                A.values().data(), B, alpha, beta, C);
    });
    check_launch("row_split_tile32");
    return;
  }
  const int rpw = rows_per_warp(A.rows(), A.nnz());
  const dim3 grid(static_cast<unsigned>(ceil_div(A.rows(), kWarpsPerBlock * rpw)),
                  static_cast<unsigned>(tiles));
  if (rpw > 1) {
    row_block_tile32<VEC, NV, T, I><<<grid, kSpmmBlock, 0, ctx.stream>>>(
        A.rows(), n, rpw, A.row_ptr().data(), A.col_idx().data(), A.values().data(), B, alpha, beta,
        C);
    check_launch("row_block_tile32");
  } else {
    row_split_tile32<1, VEC, NV, T, I><<<grid, kSpmmBlock, 0, ctx.stream>>>(
        A.rows(), n, A.row_ptr().data(), A.col_idx().data(), A.values().data(), B, alpha, beta, C);
    check_launch("row_split_tile32");
  }
}

template <int W, int V, class T, class I>
void launch_row_split(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                      std::int64_t n, const ExecContext& ctx) {
  if constexpr (W == kWarp) {
    with_lane_tile<T>(
        B, C, n, [&]<int VEC, int NV>() { launch_tile32<VEC, NV>(alpha, A, B, beta, C, n, ctx); });
  } else {
    const int parts = split_parts<row_split_narrow<2, W, V, T, I>, row_split_narrow<4, W, V, T, I>>(
        A, 1, kNarrowUnroll * kWarp / W, 4);
    with_constant<1, 2, 4>(parts, [&]<int K>() {
      const auto blocks = static_cast<unsigned>(ceil_div(A.rows(), kWarpsPerBlock / K));
      row_split_narrow<K, W, V, T, I><<<blocks, kSpmmBlock, 0, ctx.stream>>>(
          A.rows(), n, A.row_ptr().data(), A.col_idx().data(), A.values().data(), B, alpha, beta,
          C);
    });
    check_launch("row_split_narrow");
  }
}

/// Columns per lane of the vector groups (spmm_vector_groups): 16 bytes.
template <class T>
inline constexpr int kGroupVec = sizeof(T) == 4 ? 4 : 2;

/// Calls f.template operator()<W, VEC>() with the lane groups of `A` × B at
/// width n for row split (merge = false) or merge-based: W = group_width(n)
/// and VEC = 1 (W = 32: the tiles of 32 columns), or groups of W < 32 lanes
/// of kGroupVec<T> columns each where spmm_vector_groups says so.
template <bool kMerge, class T, class I, class F>
void with_groups(const Csr<T, I>& A, const Strided<const T>& B, const Strided<T>& C, std::int64_t n,
                 F&& f) {
  constexpr int V = kGroupVec<T>;
  const bool fits = vector_fits<V>(B, C, n);
  const double mean =
      A.rows() > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(A.rows()) : 0.0;
  const int w = spmm_vector_groups(n, V, fits, kMerge, A.rows(), mean);
  if constexpr (V == 4) {  // W = 8 only with 4 columns per lane
    if (w == 8) {
      f.template operator()<8, V>();
      return;
    }
  }
  if constexpr (!kMerge) {  // merge-based takes no groups of 16 (spmm_vector_groups)
    if (w == 16) {
      f.template operator()<16, V>();
      return;
    }
  }
  with_constant<32, 1, 2, 4, 8, 16>(group_width(n),
                                    [&]<int W>() { f.template operator()<W, 1>(); });
}

/// n ≤ 16: calls f.template operator()<W>() with row_group_narrow's lanes
/// per row (spmm_row_group_lanes: 16-byte vectors of kGroupVec<T>
/// columns) and returns true, or returns false where spmm_row_groups says
/// no (B or C without the vectors, long or irregular rows, a small matrix).
template <class T, class I, class F>
bool with_row_groups(const Csr<T, I>& A, const Strided<const T>& B, const Strided<T>& C,
                     std::int64_t n, F&& f) {
  constexpr int V = kGroupVec<T>;
  if (n > 16 || A.rows() == 0) return false;
  const bool fits = vector_fits<V>(B, C, n);
  const int sms = auto_device().sms;
  // The row statistics are read (cached) only where the rest holds.
  if (!spmm_row_groups(A.rows(), A.nnz(), 0, n, V, fits, sms) ||
      !spmm_row_groups(A.rows(), A.nnz(), csr_row_stats(A).max_len, n, V, fits, sms))
    return false;
  const int w = spmm_row_group_lanes(n, V);
  if constexpr (V == 4) {
    with_constant<4, 1, 2>(w, [&]<int W>() { f.template operator()<W>(); });
  } else {
    with_constant<8, 1, 2, 4>(w, [&]<int W>() { f.template operator()<W>(); });
  }
  return true;
}

}  // namespace

template <Value T, Index I>
void spmm_csr_row_split(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx) {
  const Strided<const T> b = strided(B);
  const Strided<T> c = strided(C);
  const std::int64_t n = B.cols;
  if (with_row_groups(A, b, c, n, [&]<int W>() {
        row_group_narrow<W, kGroupVec<T>, T, I>
            <<<grid_size(A.rows() * W, kSpmmBlock, "row_group_narrow"), kSpmmBlock, 0,
               ctx.stream>>>(A.rows(), n, A.row_ptr().data(), A.col_idx().data(), A.values().data(),
                             b, alpha, beta, c);
      })) {
    check_launch("row_group_narrow");
    return;
  }
  with_groups<false>(A, b, c, n, [&]<int W, int VEC>() {
    launch_row_split<W, VEC>(alpha, A, b, beta, c, n, ctx);
  });
}

template <Value T, Index I>
void spmm_csr_merge_based(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                          const ExecContext& ctx) {
  const Strided<const T> b = strided(B);
  const Strided<T> c = strided(C);
  with_groups<true>(A, b, c, B.cols, [&]<int W, int VEC>() {
    launch_merge<W, VEC>(alpha, A, b, beta, c, B.cols, ctx);
  });
}

template <Value T, Index I>
std::string spmm_csr_can_run(const Csr<T, I>& A, const SpmmShape& shape) {
  if (ceil_div(shape.n, kWarp) > kMaxGridY)
    return "n = " + std::to_string(shape.n) + " columns exceed the grid's " +
           std::to_string(kMaxGridY) + " tiles of 32";
  // The kernels address row i of B as a per-lane pointer + i × the row
  // stride in bytes, an int (LaneB, GroupB): a row-major B of more than one
  // row whose stride exceeds that is refused (B of one row: only row 0).
  if (shape.b_layout == Layout::RowMajor && A.cols() > 1 &&
      shape.ldb > std::numeric_limits<int>::max() / static_cast<std::int64_t>(sizeof(T)))
    return "B's leading dimension " + std::to_string(shape.ldb) +
           " exceeds the row stride the kernels address with 32 bits (" +
           std::to_string(std::numeric_limits<int>::max() / sizeof(T)) + " elements)";
  if (ceil_div(A.rows(), kWarpsPerBlock) > kMaxGridX)
    return "too many rows for one launch: " + std::to_string(A.rows());
  if (ceil_div(A.nnz(), 32) * 32 / kSpmmBlock > kMaxGridX)
    return "too many nonzeros for one launch: " + std::to_string(A.nnz());
  return {};
}

#define SPX_INST(T, I)                                                                         \
  template void spmm_csr_row_split(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>,   \
                                   const ExecContext&);                                        \
  template void spmm_csr_merge_based(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                     const ExecContext&);                                      \
  template std::string spmm_csr_can_run(const Csr<T, I>&, const SpmmShape&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
