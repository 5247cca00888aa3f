// CSC on the CUDA backend: SpMV and SpMM kernels, the transposition of the
// pattern they and the device conversion CSR → CSC share, and the Auto rule.
//
//   column scatter   equal nonzeros per warp (the column of each warp's first
//                    nonzero found once and cached, ChunkStarts); each lane
//                    finds its entry's column by a binary search over the
//                    columns its warp's chunk spans and adds alpha·a_rc·x[c]
//                    to y[r] with an atomic add. Reads A once, coalesced; the
//                    order of the additions into y depends on timing: not
//                    deterministic.
//   transposed       the pattern's rows, found once by a stable radix sort of
//                    the entries by row (TransposedPattern, kept in the
//                    matrix's structure cache), then equal nonzeros per warp
//                    over those rows, runs of equal rows summed by warp scans
//                    and the rows crossing warps' chunks fixed up in warp
//                    order; the values are read through the permutation.
//                    Deterministic, no atomics. SpMM: a warp per row and tile
//                    of 32 columns of B, through the same transposition.
#include "cuda/csc.hpp"

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/register.hpp"
#include "cuda/spmm_tile.cuh"

namespace spx::cuda {
namespace {

int bits_for(std::int64_t n) {  // bits needed to write the values [0, n)
  int b = 0;
  while (b < 63 && (std::int64_t{1} << b) < n)
    ++b;
  return b;
}

// ---- the transposition ---------------------------------------------------------

template <class I>
__global__ void __launch_bounds__(kBlock) iota_kernel(std::int64_t n, I* __restrict__ out) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k < n) out[k] = static_cast<I>(k);
}

/// ptr[s] = the first position of sorted `keys` (n of them) with key >= s,
/// for s in [0, slices].
template <class K, class I>
__global__ void __launch_bounds__(kBlock)
    slice_starts_kernel(const K* __restrict__ keys, std::int64_t n, std::int64_t slices,
                        I* __restrict__ ptr) {
  const std::int64_t s = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (s > slices) return;
  ptr[s] = static_cast<I>(lower_bound_index(keys, 0, n, s));
}

/// idx[p] = the outer slice holding source entry perm[p].
template <class I>
__global__ void __launch_bounds__(kBlock)
    outer_of_kernel(const I* __restrict__ ptr, std::int64_t outer, const I* __restrict__ perm,
                    std::int64_t n, I* __restrict__ idx) {
  const std::int64_t p = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (p < n) idx[p] = static_cast<I>(upper_bound_index(ptr + 1, 0, outer, std::int64_t{perm[p]}));
}

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    gather_kernel(const T* __restrict__ src, const I* __restrict__ perm, std::int64_t n,
                  T* __restrict__ dst) {
  const std::int64_t p = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (p < n) dst[p] = src[perm[p]];
}

// ---- SpMV ------------------------------------------------------------------------

/// first[w] = the slice holding nonzero w·chunk.
template <class I>
__global__ void __launch_bounds__(kBlock)
    chunk_starts_kernel(std::int64_t slices, const I* __restrict__ ptr, std::int64_t chunk,
                        std::int64_t warps, I* __restrict__ first) {
  const std::int64_t w = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (w < warps) first[w] = static_cast<I>(upper_bound_index(ptr + 1, 0, slices, w * chunk));
}

/// The slice holding each lane's entry k of a window of 32 consecutive
/// entries, among the slices [cur, hi] (cur, the same for the whole warp,
/// holds the window's first entry; every lane passes a k of the window):
/// the ends of the next 32 slices are read at once and counted by shuffles,
/// and only entries past all 32 (runs of empty slices) search further.
template <class I>
__device__ __forceinline__ std::int64_t window_slice(const I* ptr, std::int64_t cur,
                                                     std::int64_t hi, std::int64_t k, int lane) {
  const std::int64_t s = cur + lane;
  const std::int64_t end = s <= hi ? std::int64_t{ptr[s + 1]} : INT64_MAX;
  const int n = warp_count_le(end, k);  // slices of the 32 that end at or before k
  if (n < kWarpSize) return cur + n;
  const std::int64_t from = cur + kWarpSize;
  return from + upper_bound_index(ptr + from + 1, 0, hi - from + 1, k);
}

/// Nonzeros [w·chunk, (w+1)·chunk) go to warp w, a window of 32 at a time:
/// each lane finds its entry's column by a binary search over the columns
/// the chunk spans, then adds alpha·a_rc·x[c] into y[r] (y already holds
/// beta·y). Equal work per warp whatever the column lengths.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    csc_scatter_kernel(std::int64_t cols, std::int64_t nnz, const I* __restrict__ col_ptr,
                       const I* __restrict__ row, const T* __restrict__ val,
                       const T* __restrict__ x, T alpha, T* __restrict__ y,
                       const I* __restrict__ warp_col, std::int64_t chunk, std::int64_t warps) {
  const std::int64_t w = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (w >= warps) return;  // warp-uniform
  const std::int64_t k_begin = w * chunk;
  const std::int64_t k_end = min(k_begin + chunk, nnz);
  std::int64_t c_cur = warp_col[w];
  const std::int64_t c_hi = w + 1 < warps ? std::int64_t{warp_col[w + 1]} : cols - 1;
  for (std::int64_t base = k_begin; base < k_end; base += kWarpSize) {
    const std::int64_t k = min(base + lane, k_end - 1);
    const std::int64_t c = window_slice(col_ptr, c_cur, c_hi, k, lane);
    if (base + lane < k_end) atomicAdd(y + row[k], alpha * (val[k] * __ldg(x + c)));
    c_cur = __shfl_sync(kFullMask, c, kWarpSize - 1);
  }
}

/// What a warp of the transposed kernel leaves for the fix-up: the partial
/// sum of the row its chunk starts inside (head: the row began in an earlier
/// chunk; `head_on`: it also goes on past this chunk) and of the row it ends
/// inside (tail: the row began in this chunk and goes on). Row -1: none.
template <class T, class I>
struct Partials {
  I* head_row;
  T* head_sum;
  bool* head_on;
  I* tail_row;
  T* tail_sum;
};

/// Rows of the transposition, equal nonzeros per warp ([w·chunk, (w+1)·chunk)),
/// 32 at a time: each lane finds its entry's row (a binary search over the
/// rows the chunk spans), multiplies the value (read through perm) by x, and
/// the warp sums runs of equal rows with warp_run_scan, carrying the window's
/// last run into the next window. A row complete within the chunk is added
/// to y (which holds beta·y) by this warp alone; the partial sums of the rows
/// crossing the chunk's ends go to `parts`. Every addition is in an order
/// fixed by the matrix and the launch geometry: deterministic.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    csc_rows_kernel(std::int64_t rows, std::int64_t nnz, const I* __restrict__ row_ptr,
                    const I* __restrict__ col, const I* __restrict__ perm,
                    const T* __restrict__ val, const T* __restrict__ x, T alpha, T* __restrict__ y,
                    const I* __restrict__ warp_row, std::int64_t chunk, std::int64_t warps,
                    Partials<T, I> parts) {
  const std::int64_t w = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (w >= warps) return;  // warp-uniform
  const std::int64_t k_begin = w * chunk;
  const std::int64_t k_end = min(k_begin + chunk, nnz);
  std::int64_t r_cur = warp_row[w];
  const std::int64_t r_hi = w + 1 < warps ? std::int64_t{warp_row[w + 1]} : rows - 1;
  if (lane == 0) {
    parts.head_row[w] = I{-1};
    parts.tail_row[w] = I{-1};
  }
  __syncwarp();
  // A run of row r with sum s is complete: where does it go?
  const auto close = [&](std::int64_t r, T s) {
    const bool before = row_ptr[r]<k_begin, after = row_ptr[r + 1]> k_end;
    if (before) {
      parts.head_row[w] = static_cast<I>(r);
      parts.head_sum[w] = s;
      parts.head_on[w] = after;
    } else if (after) {
      parts.tail_row[w] = static_cast<I>(r);
      parts.tail_sum[w] = s;
    } else {
      y[r] += alpha * s;
    }
  };
  std::int64_t open_row = -1;  // the previous window's last run, not yet closed
  T open_sum = 0;
  for (std::int64_t base = k_begin; base < k_end; base += kWarpSize) {
    const std::int64_t k = base + lane;
    const bool valid = k < k_end;
    const std::int64_t slice = window_slice(row_ptr, r_cur, r_hi, min(k, k_end - 1), lane);
    r_cur = __shfl_sync(kFullMask, slice, kWarpSize - 1);
    const std::int64_t r = valid ? slice : -1;
    T prod = valid ? val[perm[k]] * __ldg(x + col[k]) : T{0};
    // The open run continues in lane 0 if the row matches; else it is
    // complete. (Lane 0 is always valid.)
    if (lane == 0) {
      if (r == open_row) {
        prod = open_sum + prod;
      } else if (open_row >= 0) {
        close(open_row, open_sum);
      }
    }
    unsigned heads = 0;
    const T total = warp_run_scan(r, prod, lane, heads);
    // Every run but the window's last is complete.
    if (r >= 0 && lane != kWarpSize - 1 && run_tail(heads, lane)) close(r, total);
    open_row = __shfl_sync(kFullMask, r, kWarpSize - 1);
    open_sum = __shfl_sync(kFullMask, total, kWarpSize - 1);
  }
  if (lane == 0 && open_row >= 0) close(open_row, open_sum);
}

/// The rows crossing chunk ends: the warp where such a row begins (its tail)
/// adds its partial and the heads of the following warps that hold the row,
/// in warp order, then adds the sum to y.
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    csc_rows_fixup_kernel(std::int64_t warps, Partials<T, I> parts, T alpha, T* __restrict__ y) {
  const std::int64_t w = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (w >= warps) return;
  const I r = parts.tail_row[w];
  if (r < 0) return;
  T sum = parts.tail_sum[w];
  for (std::int64_t v = w + 1; v < warps && parts.head_row[v] == r; ++v) {
    sum += parts.head_sum[v];
    if (!parts.head_on[v]) break;
  }
  y[r] += alpha * sum;
}

// ---- SpMM ------------------------------------------------------------------------

/// Element (i, j) of a dense view: i·rs + j·cs.
struct Strides {
  std::int64_t rs, cs;
};
template <class T>
Strides strides_of(const DenseView<T>& M) {
  return M.layout == Layout::RowMajor ? Strides{M.ld, 1} : Strides{1, M.ld};
}

/// A warp per (row, tile of 32 columns): lane j of the tile sums
/// a_rk·B[k, j] over the row's entries in order, then stores
/// C[r, j] = alpha·sum + beta·C[r, j] (C not read when beta = 0).
template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    csc_spmm_rows_kernel(std::int64_t rows, std::int64_t n, const I* __restrict__ row_ptr,
                         const I* __restrict__ col, const I* __restrict__ perm,
                         const T* __restrict__ val, const T* __restrict__ B, Strides sb, T alpha,
                         T beta, T* __restrict__ C, Strides sc) {
  const std::int64_t r = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) / kWarpSize;
  if (r >= rows) return;  // warp-uniform
  const int lane = threadIdx.x % kWarpSize;
  const std::int64_t j = std::int64_t{blockIdx.y} * kWarpSize + lane;
  const bool active = j < n;
  T sum = 0;
  const std::int64_t end = row_ptr[r + 1];
  for (std::int64_t base = row_ptr[r]; base < end; base += kWarpSize) {
    // The warp loads up to 32 of the row's entries, one per lane, then
    // broadcasts them in order.
    const std::int64_t mine = base + lane;
    const I c_mine = mine < end ? col[mine] : I{0};
    const T v_mine = mine < end ? val[perm[mine]] : T{0};
    const int count = static_cast<int>(end - base < kWarpSize ? end - base : kWarpSize);
    for (int t = 0; t < count; ++t) {
      const std::int64_t c = __shfl_sync(kFullMask, static_cast<std::int64_t>(c_mine), t);
      const T v = __shfl_sync(kFullMask, v_mine, t);
      if (active) sum += v * B[c * sb.rs + j * sb.cs];
    }
  }
  if (active) {
    T* out = C + r * sc.rs + j * sc.cs;
    *out = beta == T{0} ? alpha * sum : alpha * sum + beta * *out;
  }
}

}  // namespace

template <Index I>
TransposedPattern<I> transpose_pattern(std::int64_t outer, std::int64_t inner, const I* ptr,
                                       const I* idx, std::int64_t nnz, cudaStream_t stream) {
  using K = std::make_unsigned_t<I>;  // the inner indices, known non-negative
  TransposedPattern<I> t;
  t.ptr = Array<I>(static_cast<std::size_t>(inner) + 1, Space::Device);
  t.idx = Array<I>(static_cast<std::size_t>(nnz), Space::Device);
  t.perm = Array<I>(static_cast<std::size_t>(nnz), Space::Device);
  if (nnz > 0) {
    const StreamScratch sorted_keys(static_cast<std::size_t>(nnz) * sizeof(K), stream);
    const StreamScratch positions(static_cast<std::size_t>(nnz) * sizeof(I), stream);
    iota_kernel<<<grid_size(nnz, kBlock, "iota_kernel"), kBlock, 0, stream>>>(nnz,
                                                                              positions.as<I>());
    check_launch("iota_kernel");
    // Stable: the entries of one inner slice keep their outer order.
    with_cub_temp("cub::DeviceRadixSort::SortPairs (transposition)", stream,
                  [&](void* temp, std::size_t& bytes) {
                    return cub::DeviceRadixSort::SortPairs(
                        temp, bytes, reinterpret_cast<const K*>(idx), sorted_keys.as<K>(),
                        positions.as<I>(), t.perm.data(), nnz, 0, std::max(bits_for(inner), 1),
                        stream);
                  });
    slice_starts_kernel<<<grid_size(inner + 1, kBlock, "slice_starts_kernel"), kBlock, 0, stream>>>(
        sorted_keys.as<K>(), nnz, inner, t.ptr.data());
    check_launch("slice_starts_kernel");
    outer_of_kernel<<<grid_size(nnz, kBlock, "outer_of_kernel"), kBlock, 0, stream>>>(
        ptr, outer, t.perm.data(), nnz, t.idx.data());
    check_launch("outer_of_kernel");
  } else {
    check(cudaMemsetAsync(t.ptr.data(), 0, t.ptr.bytes(), stream),
          "cudaMemsetAsync(transposition)");
  }
  // Later calls may come on other streams (and the scratch above is released
  // in stream order): finish before sharing.
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(transposition)");
  return t;
}

template <Value T, Index I>
void gather(const T* src, const I* perm, std::int64_t n, T* dst, cudaStream_t stream) {
  if (n <= 0) return;
  gather_kernel<<<grid_size(n, kBlock, "gather_kernel"), kBlock, 0, stream>>>(src, perm, n, dst);
  check_launch("gather_kernel");
}

template <Value T, Index I>
const TransposedPattern<I>& csc_rows(const Csc<T, I>& A, const ExecContext& ctx) {
  return A.structure_cache().template get<TransposedPattern<I>>([&] {
    return transpose_pattern<I>(A.cols(), A.rows(), A.col_ptr().data(), A.row_idx().data(), A.nnz(),
                                ctx.stream);
  });
}

/// The ChunkStarts of `kernel` over the slices of (ptr, slices, nnz), kept
/// in `cache`: one wave of warps (as many as can be resident at once), equal
/// nonzeros each.
template <Slices S, class I>
const ChunkStarts<I, S>& chunk_starts(detail::StructureCache& cache, const void* kernel,
                                      const char* name, const I* ptr, std::int64_t slices,
                                      std::int64_t nnz, cudaStream_t stream) {
  const std::int64_t resident = resident_warps(kernel, kBlock, name);
  const std::int64_t chunk =
      ceil_div(std::max<std::int64_t>(ceil_div(nnz, resident), 1), kWarpSize) * kWarpSize;
  return cache.template get<ChunkStarts<I, S>>(chunk, [&] {
    ChunkStarts<I, S> plan;
    plan.chunk = chunk;
    plan.warps = ceil_div(nnz, chunk);
    plan.first = Array<I>(static_cast<std::size_t>(plan.warps), Space::Device);
    if (plan.warps > 0) {
      chunk_starts_kernel<<<grid_size(plan.warps, kBlock, "chunk_starts_kernel"), kBlock, 0,
                            stream>>>(slices, ptr, plan.chunk, plan.warps, plan.first.data());
      check_launch("chunk_starts_kernel");
    }
    // Later calls may come on other streams: finish the plan before sharing it.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize(chunk starts)");
    return plan;
  });
}

template <Value T, Index I>
void spmv_csc_scatter(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y,
                      const ExecContext& ctx) {
  if (beta != T{1}) detail::cuda_scale(beta, y, A.rows(), ctx);
  if (A.nnz() == 0 || alpha == T{0}) return;
  const auto& plan = chunk_starts<Slices::Columns>(
      A.structure_cache(), reinterpret_cast<const void*>(csc_scatter_kernel<T, I>),
      "csc_scatter_kernel", A.col_ptr().data(), A.cols(), A.nnz(), ctx.stream);
  const unsigned grid = grid_size(plan.warps * kWarpSize, kBlock, "csc_scatter_kernel");
  csc_scatter_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      A.cols(), A.nnz(), A.col_ptr().data(), A.row_idx().data(), A.values().data(), x, alpha, y,
      plan.first.data(), plan.chunk, plan.warps);
  check_launch("csc_scatter_kernel");
}

template <Value T, Index I>
void spmv_csc_transposed(T alpha, const Csc<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  if (beta != T{1}) detail::cuda_scale(beta, y, A.rows(), ctx);
  if (A.nnz() == 0 || alpha == T{0}) return;
  const TransposedPattern<I>& t = csc_rows(A, ctx);
  const auto& plan = chunk_starts<Slices::TransposedRows>(
      A.structure_cache(), reinterpret_cast<const void*>(csc_rows_kernel<T, I>), "csc_rows_kernel",
      t.ptr.data(), A.rows(), A.nnz(), ctx.stream);
  // The partials of every warp in one stream-ordered allocation.
  const auto w = static_cast<std::size_t>(plan.warps);
  const auto align = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const std::size_t rows_bytes = align(w * sizeof(I)), sums_bytes = align(w * sizeof(T));
  const StreamScratch scratch(2 * rows_bytes + 2 * sums_bytes + w, ctx.stream);
  auto* base = scratch.as<unsigned char>();
  const Partials<T, I> parts{reinterpret_cast<I*>(base), reinterpret_cast<T*>(base + rows_bytes),
                             reinterpret_cast<bool*>(base + 2 * rows_bytes + 2 * sums_bytes),
                             reinterpret_cast<I*>(base + rows_bytes + sums_bytes),
                             reinterpret_cast<T*>(base + 2 * rows_bytes + sums_bytes)};
  const unsigned grid = grid_size(plan.warps * kWarpSize, kBlock, "csc_rows_kernel");
  csc_rows_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      A.rows(), A.nnz(), t.ptr.data(), t.idx.data(), t.perm.data(), A.values().data(), x, alpha, y,
      plan.first.data(), plan.chunk, plan.warps, parts);
  check_launch("csc_rows_kernel");
  csc_rows_fixup_kernel<<<grid_size(plan.warps, kBlock, "csc_rows_fixup_kernel"), kBlock, 0,
                          ctx.stream>>>(plan.warps, parts, alpha, y);
  check_launch("csc_rows_fixup_kernel");
}

// The Auto rule: column scatter, which reads the matrix once in its own
// order. On the H100 (session 7, bench/results/) it was 0.78-1.48x
// cuSPARSE's CSC SpMV and faster than the transposed kernel on the regular,
// road and R-MAT members; the transposed kernel won (1.2-4.3x cuSPARSE) where
// some rows hold thousands of entries (denserows, chunglu: the atomics of
// column scatter contend on those rows), but telling those apart needs the
// row lengths, which a CSC does not keep: left to the advisor. Callers who
// need bitwise reproducible results ask for Algorithm::Transposed.
template <Value T, Index I>
Algorithm choose_csc(const Csc<T, I>&) {
  return Algorithm::ColumnScatter;
}

template <Value T, Index I>
void spmm_csc_transposed(T alpha, const Csc<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                         const ExecContext& ctx) {
  const std::int64_t n = C.cols;
  if (A.rows() == 0 || n == 0) return;
  const TransposedPattern<I>& t = csc_rows(A, ctx);
  const dim3 grid(grid_size(A.rows() * kWarpSize, kBlock, "csc_spmm_rows_kernel"),
                  static_cast<unsigned>(ceil_div(n, kWarpSize)));
  csc_spmm_rows_kernel<<<grid, kBlock, 0, ctx.stream>>>(
      A.rows(), n, t.ptr.data(), t.idx.data(), t.perm.data(), A.values().data(), B.data,
      strides_of(B), alpha, beta, C.data, strides_of(C));
  check_launch("csc_spmm_rows_kernel");
}

template <Value T, Index I>
std::string spmm_csc_can_run(const Csc<T, I>& A, const SpmmShape& shape) {
  if (ceil_div(shape.n, kWarpSize) > spmm_tile::kMaxGridY)
    return "n = " + std::to_string(shape.n) + " columns exceed the grid's " +
           std::to_string(spmm_tile::kMaxGridY) + " tiles of 32";
  if (ceil_div(A.rows() * kWarpSize, kBlock) > spmm_tile::kMaxGridX)
    return "too many rows for one launch: " + std::to_string(A.rows());
  return {};
}

#define SPX_INST_I(I)                                                                      \
  template TransposedPattern<I> transpose_pattern<I>(std::int64_t, std::int64_t, const I*, \
                                                     const I*, std::int64_t, cudaStream_t);
SPX_INST_I(std::int32_t)
SPX_INST_I(std::int64_t)
#undef SPX_INST_I

#define SPX_INST(T, I)                                                                         \
  template void gather(const T*, const I*, std::int64_t, T*, cudaStream_t);                    \
  template const TransposedPattern<I>& csc_rows(const Csc<T, I>&, const ExecContext&);         \
  template void spmv_csc_scatter(T, const Csc<T, I>&, const T*, T, T*, const ExecContext&);    \
  template void spmv_csc_transposed(T, const Csc<T, I>&, const T*, T, T*, const ExecContext&); \
  template Algorithm choose_csc(const Csc<T, I>&);                                             \
  template void spmm_csc_transposed(T, const Csc<T, I>&, DenseView<const T>, T, DenseView<T>,  \
                                    const ExecContext&);                                       \
  template std::string spmm_csc_can_run(const Csc<T, I>&, const SpmmShape&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
