// CSR SpMM on the GPU by row panels: a warp per (panel of R consecutive rows,
// column tile) walks the union of the panel's columns, so that a row of B
// that several rows of the panel need is loaded once for all of them. On
// matrices whose consecutive rows share most columns (FEM b×b blocks: the b
// rows of a block row have identical columns; the 27-point stencil: rows
// i..i+3 share two thirds of theirs) this cuts the loads of B, which bound
// row split there (spmm_csr.cu), by up to R.
//
// Structure (RowPanels, cache_entries.hpp), built on the device and cached
// per R in A.structure_cache(): for panel p the sorted distinct columns of
// its rows (ptr, col) and, per column, a mask of the rows that hold it. No
// values: the entries of row r appear in the union in the row's own (sorted)
// order, so a batch of 32 union entries finds row r's values at consecutive
// positions of A.values(), the k-th lane with bit r set at the row's cursor
// + k (a ballot and a popcount); A's values may thus change in place without
// invalidating the cache, and the values are read once, as in CSR.
//
// Build (three passes over the nonzeros, a thread per nonzero, the row by
// binary search in row_ptr, so that a long row costs no more per nonzero
// than a short one):
//  1. flag: nonzero (i, c) is the first of its column in the panel when no
//     earlier row of the panel holds c (binary searches in ≤ R − 1 rows);
//  2. exclusive scan of the flags (CUB): s[k] flagged nonzeros before k;
//     the panel's union starts at s[ptr[p·R]];
//  3. fill: a flagged (i, c) goes to union position s[ptr[p·R]] + Σ_rows
//     (flagged entries of that row with column < c) = Σ_rows s[lower_bound
//     (row, c)] − s[row start], the same searches giving the mask.
// The plan (panel_plan) counts U_2, U_4, U_8 in one pass: a nonzero's
// nearest earlier row holding its column within its 8-row panel decides
// the flag of all three R (panels of 2 and 4 nest in those of 8).
//
// Kernel (row_panel_tile32): lanes and tiles as row split for n > 16
// (LaneTile<VEC, NV>, vector loads of B and stores of C where B and C are
// row-major and aligned). Per batch of 32 union entries each lane loads one
// entry (column, mask, its R values) and stages it in shared memory; then
// groups of kGroup entries issue their loads of B rows first and
// accumulate R × VEC × NV products per lane, each entry's column, mask and
// R values read by broadcast from shared memory. Broadcast loads rather
// than shuffles: a shuffle moves 4 bytes per lane, so R doubles cost 2R
// shuffles per entry, while R values staged contiguously come in R·sizeof(T)
// / 16 vector loads (f64, R = 4: 2 loads instead of 8 shuffles). A row adds
// a product only where its mask bit is set: a column it lacks contributes
// nothing, not 0·B (which would turn an Inf of B into a NaN). Each row sums
// its entries in column order, as row split does; no atomics: deterministic.
#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/spmm.hpp"
#include "cuda/spmm_tile.cuh"
#include "spx/core/error.hpp"

namespace spx::cuda {
namespace {

using namespace spmm_tile;  // NOLINT(google-build-using-namespace)

constexpr int kMaxPanel = 8;           ///< the largest R (masks are 8 bits)
constexpr int kBuildBlock = 256;       ///< threads per block of the build passes
constexpr int kBuildBlocksPerSm = 16;  ///< grid of the build passes (grid-stride)

// ---- build ------------------------------------------------------------------

/// Whether row r holds column c.
template <class I>
__device__ __forceinline__ bool row_has(const I* __restrict__ ptr, const I* __restrict__ col,
                                        std::int64_t r, std::int64_t c) {
  const std::int64_t e = load(ptr + r + 1);
  const std::int64_t k = lower_bound_index(col, load(ptr + r), e, c);
  return k < e && static_cast<std::int64_t>(load(col + k)) == c;
}

/// The row of nonzero k < nnz: the last r with ptr[r] ≤ k (empty rows
/// share their ptr with the next row, so the last one is the nonempty one).
template <class I>
__device__ __forceinline__ std::int64_t row_of(const I* __restrict__ ptr, std::int64_t m,
                                               std::int64_t k) {
  return upper_bound_index(ptr, 0, m, k) - 1;  // ptr[0] = 0 ≤ k < nnz = ptr[m]
}

/// The distance back to the nearest earlier row of the same panel of R rows
/// that holds column c of row i, or R when none does: (i, c) is the first
/// of its column in its panel when the result exceeds i mod R.
template <class I>
__device__ __forceinline__ int nearest_earlier(const I* __restrict__ ptr, const I* __restrict__ col,
                                               std::int64_t i, std::int64_t c, int R) {
  const int back = static_cast<int>(i % R);
  for (int d = 1; d <= back; ++d)
    if (row_has(ptr, col, i - d, c)) return d;
  return R;
}

/// Pass of the plan: totals[q] += the number of nonzeros first of their
/// column in their panel of 2 << q rows (q = 0, 1, 2), i.e. U_2, U_4, U_8.
template <class I>
__global__ void __launch_bounds__(kBuildBlock)
    panel_count(std::int64_t m, std::int64_t nnz, const I* __restrict__ ptr,
                const I* __restrict__ col, unsigned long long* __restrict__ totals) {
  unsigned long long count[3] = {0, 0, 0};
  for (std::int64_t k = blockIdx.x * std::int64_t{kBuildBlock} + threadIdx.x; k < nnz;
       k += std::int64_t{gridDim.x} * kBuildBlock) {
    const std::int64_t i = row_of(ptr, m, k);
    const int d = nearest_earlier(ptr, col, i, load(col + k), kMaxPanel);
#pragma unroll
    for (int q = 0; q < 3; ++q)
      count[q] += d > static_cast<int>(i % (2 << q)) ? 1 : 0;
  }
#pragma unroll
  for (int q = 0; q < 3; ++q) {
    count[q] = group_sum<kWarp>(count[q]);
    if (threadIdx.x % kWarp == 0 && count[q] > 0) atomicAdd(totals + q, count[q]);
  }
}

/// Pass 1: flag[k] = 1 when nonzero k is the first of its column in its
/// panel, else 0; flag[nnz] = 0 (the scan's total).
template <int R, class I>
__global__ void __launch_bounds__(kBuildBlock)
    panel_flags(std::int64_t m, std::int64_t nnz, const I* __restrict__ ptr,
                const I* __restrict__ col, std::int64_t* __restrict__ flag) {
  for (std::int64_t k = blockIdx.x * std::int64_t{kBuildBlock} + threadIdx.x; k <= nnz;
       k += std::int64_t{gridDim.x} * kBuildBlock) {
    if (k == nnz) {
      flag[k] = 0;
    } else {
      const std::int64_t i = row_of(ptr, m, k);
      flag[k] = nearest_earlier(ptr, col, i, load(col + k), R) > static_cast<int>(i % R) ? 1 : 0;
    }
  }
}

/// Pass 3a: uptr[p] = s[ptr[min(p·R, m)]] for p ≤ panels.
template <int R, class I>
__global__ void __launch_bounds__(kBuildBlock)
    panel_offsets(std::int64_t m, std::int64_t panels, const I* __restrict__ ptr,
                  const std::int64_t* __restrict__ s, I* __restrict__ uptr) {
  for (std::int64_t p = blockIdx.x * std::int64_t{kBuildBlock} + threadIdx.x; p <= panels;
       p += std::int64_t{gridDim.x} * kBuildBlock)
    uptr[p] = static_cast<I>(s[load(ptr + min(p * R, m))]);
}

/// Pass 3b: each flagged nonzero (i, c) writes its union entry: column c at
/// position uptr[p] + Σ over the panel's rows of their flagged entries with
/// a column < c, and the mask of the rows holding c.
template <int R, class I>
__global__ void __launch_bounds__(kBuildBlock)
    panel_fill(std::int64_t m, std::int64_t nnz, const I* __restrict__ ptr,
               const I* __restrict__ col, const std::int64_t* __restrict__ s,
               const I* __restrict__ uptr, I* __restrict__ ucol, std::uint8_t* __restrict__ umask) {
  for (std::int64_t k = blockIdx.x * std::int64_t{kBuildBlock} + threadIdx.x; k < nnz;
       k += std::int64_t{gridDim.x} * kBuildBlock) {
    if (s[k + 1] == s[k]) continue;  // not the first of its column in the panel
    const std::int64_t i = row_of(ptr, m, k);
    const std::int64_t c = load(col + k);
    const std::int64_t p = i / R, first = p * R, last = min(first + R, m);
    std::int64_t pos = load(uptr + p);
    unsigned mask = 0;
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t b = load(ptr + r), e = load(ptr + r + 1);
      const std::int64_t lb = lower_bound_index(col, b, e, c);
      pos += s[lb] - s[b];
      if (lb < e && static_cast<std::int64_t>(load(col + lb)) == c) mask |= 1u << (r - first);
    }
    ucol[pos] = static_cast<I>(c);
    umask[pos] = static_cast<std::uint8_t>(mask);
  }
}

unsigned build_grid(std::int64_t items) {
  const std::int64_t blocks = std::max<std::int64_t>(1, ceil_div(items, kBuildBlock));
  return static_cast<unsigned>(std::min<std::int64_t>(blocks, kBuildBlocksPerSm * sm_count()));
}

template <int R, class I>
RowPanels<I> build_row_panels(std::int64_t m, std::int64_t nnz, const I* ptr, const I* col,
                              cudaStream_t stream) {
  RowPanels<I> out;
  out.rows = R;
  out.panels = ceil_div(m, R);
  const StreamScratch scan(static_cast<std::size_t>(nnz + 1) * sizeof(std::int64_t), stream);
  std::int64_t* const s = scan.as<std::int64_t>();
  panel_flags<R, I><<<build_grid(nnz + 1), kBuildBlock, 0, stream>>>(m, nnz, ptr, col, s);
  check_launch("panel_flags");
  with_cub_temp("cub::DeviceScan::ExclusiveSum (row panels)", stream,
                [&](void* temp, std::size_t& bytes) {
                  return cub::DeviceScan::ExclusiveSum(temp, bytes, s, s, nnz + 1, stream);
                });
  check(cudaMemcpyAsync(&out.total, s + nnz, sizeof out.total, cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (row panel total)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (row panels)");
  out.ptr = Array<I>(static_cast<std::size_t>(out.panels + 1), Space::Device);
  out.col = Array<I>(static_cast<std::size_t>(out.total), Space::Device);
  out.mask = Array<std::uint8_t>(static_cast<std::size_t>(out.total), Space::Device);
  panel_offsets<R, I><<<build_grid(out.panels + 1), kBuildBlock, 0, stream>>>(m, out.panels, ptr, s,
                                                                              out.ptr.data());
  check_launch("panel_offsets");
  if (out.total > 0) {
    panel_fill<R, I><<<build_grid(nnz), kBuildBlock, 0, stream>>>(
        m, nnz, ptr, col, s, out.ptr.data(), out.col.data(), out.mask.data());
    check_launch("panel_fill");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (row panels)");
  return out;
}

/// U_2, U_4, U_8 of a host CSR (the same count as panel_count).
template <class T, class I>
std::array<std::int64_t, 3> host_union_totals(const Csr<T, I>& A) {
  const I* ptr = A.row_ptr().data();
  const I* col = A.col_idx().data();
  std::array<std::int64_t, 3> totals{0, 0, 0};
  for (std::int64_t i = 0; i < A.rows(); ++i) {
    for (I k = ptr[i]; k < ptr[i + 1]; ++k) {
      int d = kMaxPanel;
      for (int back = 1; back <= static_cast<int>(i % kMaxPanel); ++back)
        if (std::binary_search(col + ptr[i - back], col + ptr[i - back + 1], col[k])) {
          d = back;
          break;
        }
      for (int q = 0; q < 3; ++q)
        totals[q] += d > static_cast<int>(i % (2 << q)) ? 1 : 0;
    }
  }
  return totals;
}

template <class T, class I>
const UnionTotals& union_totals(const Csr<T, I>& A) {
  return A.structure_cache().template get<UnionTotals>([&] {
    UnionTotals t;
    if (A.rows() == 0 || A.nnz() == 0) return t;
    if (A.space() == Space::Host) {
      t.u = host_union_totals(A);
      return t;
    }
    // On the default stream, as the row statistics (the Auto rule has no
    // context); synchronous.
    const StreamScratch totals(3 * sizeof(unsigned long long), nullptr);
    check(cudaMemsetAsync(totals.as<void>(), 0, 3 * sizeof(unsigned long long), nullptr),
          "cudaMemsetAsync (row panel totals)");
    panel_count<I><<<build_grid(A.nnz()), kBuildBlock>>>(
        A.rows(), A.nnz(), A.row_ptr().data(), A.col_idx().data(), totals.as<unsigned long long>());
    check_launch("panel_count");
    unsigned long long host[3] = {0, 0, 0};
    check(cudaMemcpy(host, totals.as<void>(), sizeof host, cudaMemcpyDeviceToHost),
          "cudaMemcpy (row panel totals)");
    for (int q = 0; q < 3; ++q)
      t.u[q] = static_cast<std::int64_t>(host[q]);
    return t;
  });
}

// ---- kernel -----------------------------------------------------------------

/// v[0..R) = p[0..R), R·sizeof(T) bytes at a 16-byte boundary (8 for R = 2
/// in float), in 16- or 8-byte loads from shared memory.
template <int R, class T>
__device__ __forceinline__ void load_values(const T* p, T (&v)[R]) {
  constexpr int kLanes = (R * sizeof(T)) % 16 == 0 ? 16 / static_cast<int>(sizeof(T)) : 2;
  using V = typename VecOf<T, kLanes>::type;
#pragma unroll
  for (int e = 0; e < R / kLanes; ++e) {
    const V x = reinterpret_cast<const V*>(p)[e];
    v[e * kLanes] = x.x;
    v[e * kLanes + 1] = x.y;
    if constexpr (kLanes == 4) {
      v[e * kLanes + 2] = x.z;
      v[e * kLanes + 3] = x.w;
    }
  }
}

/// Elements per entry in the staging area: R values padded to an odd
/// multiple of 16 bytes (or 8 bytes for R = 2 in float), so that the reads
/// stay 16-byte vectors and the 32 lanes' stores of one row index spread
/// over 8 bank groups (a stride of an even multiple of 16 bytes would put
/// them in 4 or 2: f64, R = 8 unpadded is a 16-way conflict).
template <int R, class T>
constexpr int stage_stride() {
  constexpr int kBytes = R * static_cast<int>(sizeof(T));
  return (kBytes < 16 || (kBytes / 16) % 2 == 1 ? kBytes : kBytes + 16) /
         static_cast<int>(sizeof(T));
}

/// One warp's staging area: a batch of 32 union entries.
template <int R, class T, class I>
struct alignas(16) PanelBatch {
  T val[kWarp][stage_stride<R, T>()];  ///< val[t][r]: row r's value at entry t (0 without bit r)
  I col[kWarp];
  unsigned mask[kWarp];
};

/// B-row loads in flight per lane: as for_each_nonzero (spmm_csr.cu), but
/// fewer when the R·VEC·NV accumulators leave few registers (at most about
/// 80 32-bit registers for accumulators and values of B together).
template <int R, int kCols, class T>
constexpr int panel_group() {
  constexpr int kBudget = 320 / static_cast<int>(sizeof(T));  // values of T
  constexpr int kFit = (kBudget - R * kCols) / kCols;
  constexpr int kBase = kCols >= 4 ? 4 : 8;
  return kFit < 2 ? 2 : kFit < kBase ? kFit : kBase;
}

/// A warp per (panel, column tile): the panel's union entries in batches of
/// 32, one per lane, staged in shared memory; then groups of kGroup entries:
/// the group's loads of B first, then the R·kCols products of each entry.
template <int R, int VEC, int NV, class T, class I>
__global__ void __launch_bounds__(kSpmmBlock, 4)  // ≤ 128 registers: 16 warps per SM at least
    row_panel_tile32(std::int64_t m, std::int64_t n, std::int64_t panels, const I* __restrict__ ptr,
                     const T* __restrict__ val, const I* __restrict__ uptr,
                     const I* __restrict__ ucol, const std::uint8_t* __restrict__ umask,
                     Strided<const T> B, T alpha, T beta, Strided<T> C) {
  using Tile = LaneTile<VEC, NV>;
  constexpr int kCols = Tile::kCols;
  constexpr int kGroup = panel_group<R, kCols, T>();
  __shared__ PanelBatch<R, T, I> batches[kWarpsPerBlock];
  const int lane = threadIdx.x % kWarp;
  PanelBatch<R, T, I>& batch = batches[threadIdx.x / kWarp];
  const std::int64_t panel = blockIdx.x * std::int64_t{kWarpsPerBlock} + threadIdx.x / kWarp;
  if (panel >= panels) return;  // the whole warp leaves together
  const Tile tile(blockIdx.y, n);
  const LaneB<VEC, NV, T> lb(B, tile);
  const std::int64_t first = panel * R;
  const int rows = static_cast<int>(min(std::int64_t{R}, m - first));
  // Lane r < rows: the position in A of row first + r's next value.
  std::int64_t next = lane < rows ? static_cast<std::int64_t>(load(ptr + first + lane)) : 0;
  const std::int64_t ubegin = load(uptr + panel), uend = load(uptr + panel + 1);
  const unsigned below = (1u << lane) - 1u;  // lanes under this one
  T acc[R][kCols];
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int q = 0; q < kCols; ++q)
      acc[r][q] = T{0};
  for (std::int64_t base = ubegin; base < uend; base += kWarp) {
    const int count = static_cast<int>(min(std::int64_t{kWarp}, uend - base));
    // Load and stage a batch: lane t the entry base + t (lanes past the
    // range stage mask 0). Row r's values in the batch are consecutive in
    // A, in lane order of the lanes with bit r.
    unsigned mask = 0;
    I c = 0;
    if (lane < count) {
      c = load(ucol + base + lane);
      mask = load(umask + base + lane);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const bool has = (mask >> r) & 1u;
      const unsigned holders = __ballot_sync(kFullMask, has);
      const std::int64_t at = __shfl_sync(kFullMask, next, r);
      batch.val[lane][r] = has ? load(val + at + __popc(holders & below)) : T{0};
      if (lane == r) next += __popc(holders);
    }
    batch.col[lane] = c;
    batch.mask[lane] = mask;
    __syncwarp();
    for (int t0 = 0; t0 < count; t0 += kGroup) {
      T b[kGroup][kCols];
      load_b_group<kGroup>(
          lb, t0, count, [&](int t) { return batch.col[t % kWarp]; }, b);
#pragma unroll
      for (int u = 0; u < kGroup; ++u) {
        const int t = t0 + u;
        if (t < count) {  // warp-uniform
          T v[R];
          load_values<R>(batch.val[t], v);
          const unsigned mt = batch.mask[t];
#pragma unroll
          for (int r = 0; r < R; ++r)
            if ((mt >> r) & 1u) {
#pragma unroll
              for (int q = 0; q < kCols; ++q)
                acc[r][q] += v[r] * b[u][q];
            }
        }
      }
    }
    __syncwarp();  // the batch is read before the next one is staged
  }
#pragma unroll
  for (int r = 0; r < R; ++r)
    if (r < rows) tile.store(C, first + r, alpha, acc[r], beta);
}

template <int R, class T, class I>
void launch_row_panel(T alpha, const Csr<T, I>& A, Strided<const T> B, T beta, Strided<T> C,
                      std::int64_t n, const ExecContext& ctx) {
  const RowPanels<I>& p = row_panels(A, R, ctx);
  with_lane_tile<T>(B, C, n, [&]<int VEC, int NV>() {
    const dim3 grid(static_cast<unsigned>(ceil_div(p.panels, kWarpsPerBlock)),
                    static_cast<unsigned>(ceil_div(n, LaneTile<VEC, NV>::kWidth)));
    row_panel_tile32<R, VEC, NV, T, I><<<grid, kSpmmBlock, 0, ctx.stream>>>(
        A.rows(), n, p.panels, A.row_ptr().data(), A.values().data(), p.ptr.data(), p.col.data(),
        p.mask.data(), B, alpha, beta, C);
    check_launch("row_panel_tile32");
  });
}

void require_panel_rows(int R) {
  if (R != 2 && R != 4 && R != 8)
    throw InvalidInput("row_panel: rows per panel must be 2, 4 or 8, got " + std::to_string(R));
}

}  // namespace

template <Value T, Index I>
const RowPanels<I>& row_panels(const Csr<T, I>& A, int R, const ExecContext& ctx) {
  require_panel_rows(R);
  if (A.space() != Space::Device)
    throw InvalidInput("row_panels: the matrix must be in device memory");
  return A.structure_cache().template get<RowPanels<I>>(R, [&] {
    const I* ptr = A.row_ptr().data();
    const I* col = A.col_idx().data();
    switch (R) {
      case 2:
        return build_row_panels<2, I>(A.rows(), A.nnz(), ptr, col, ctx.stream);
      case 4:
        return build_row_panels<4, I>(A.rows(), A.nnz(), ptr, col, ctx.stream);
      default:
        return build_row_panels<8, I>(A.rows(), A.nnz(), ptr, col, ctx.stream);
    }
  });
}

template <Value T, Index I>
PanelPlan panel_plan(const Csr<T, I>& A, std::int64_t n) {
  PanelPlan plan;
  const UnionTotals& t = union_totals(A);
  const double tile = static_cast<double>(std::min<std::int64_t>(n, 128) * sizeof(T));
  const double csr = static_cast<double>(A.nnz()) * (tile + sizeof(T) + sizeof(I));
  double best = 0;
  for (int q = 0; q < 3; ++q) {
    const int R = 2 << q;
    plan.union_total[q] = t.u[q];
    if (R * sizeof(T) > kPanelMaxValueBytes) continue;
    const double est = static_cast<double>(t.u[q]) * (tile + R * sizeof(T) + sizeof(I));
    if (q == 0 || est < best) {
      best = est;
      plan.rows = R;
    }
  }
  plan.ratio = csr > 0 ? best / csr : 1.0;
  const double mean =
      A.rows() > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(A.rows()) : 0.0;
  plan.warps = row_panel_warps(A.rows(), plan.rows, n);
  plan.worth_it = panel_worth_it(plan.ratio, mean, few_warps(plan.warps));
  return plan;
}

template <Value T, Index I>
void spmm_csr_row_panel_with(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta,
                             DenseView<T> C, const ExecContext& ctx, int R) {
  require_panel_rows(R);
  if (A.rows() == 0 || B.cols == 0) return;
  const std::int64_t n = B.cols;
  with_constant<8, 2, 4>(
      R, [&]<int Rc>() { launch_row_panel<Rc>(alpha, A, strided(B), beta, strided(C), n, ctx); });
}

template <Value T, Index I>
void spmm_csr_row_panel(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                        const ExecContext& ctx) {
  spmm_csr_row_panel_with(alpha, A, B, beta, C, ctx, panel_plan(A, B.cols).rows);
}

#define SPX_INST(T, I)                                                                            \
  template const RowPanels<I>& row_panels(const Csr<T, I>&, int, const ExecContext&);             \
  template PanelPlan panel_plan(const Csr<T, I>&, std::int64_t);                                  \
  template void spmm_csr_row_panel(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>,      \
                                   const ExecContext&);                                           \
  template void spmm_csr_row_panel_with(T, const Csr<T, I>&, DenseView<const T>, T, DenseView<T>, \
                                        const ExecContext&, int);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
