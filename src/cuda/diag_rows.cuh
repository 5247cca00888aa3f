// The row kernel shared by DIA and HDI (device code, included by dia.cu and
// hdi.cu only; survey §4.5). A thread per row streams the row's stored
// diagonals without indirection. The two formats differ only in which
// diagonals a row has and where their values lie: every diagonal of the
// matrix at values[d * rows + i] (DIA), or the diagonals of the row's hack at
// values[H·hack_ptr[h] + d·hack_rows(h) + r] (HDI, local diagonal d of local
// row r); a layout (DIA: the number of diagonals; HDI: the hacks) and its
// row_diagonals answer both, so one kernel template serves the two formats,
// as ellpack_rows.cuh does for the ELLPACK family.
//
// The threads of a warp read consecutive values of one diagonal (coalesced)
// and consecutive entries x[i + offset] (coalesced too); all threads of a
// warp (DIA) or of a hack (HDI) read the same offsets (a broadcast). The
// diagonals are taken kChunk = 8 at a time: the 8 offsets, then the 8 values
// and 8 x entries are loaded before any multiply, so each thread keeps up to
// 16 independent loads in flight. On large matrices DIA's kernel
// (dia_rows_kernel) takes 2 or 4 rows per thread with fewer diagonals per
// chunk, by value type (DiaShape), and float values two adjacent rows per
// thread in 8-byte loads (dia_pairs_kernel). Positions outside the matrix (column
// i + offset outside [0, cols)) hold zeros and are skipped, so x is never
// read out of bounds. The explicit zeros of the formats are stored as zeros
// on their diagonals and add nothing. Deterministic: one thread sums its row
// in diagonal order.
//
// DIA-LP (dia_lp.hpp) runs the DIA instantiation over its reduced values (S):
// each is loaded in its own width and widened to T in a register, so per
// stored value the kernel reads sizeof(S) bytes of the matrix instead of
// sizeof(T), and x, y, the products and the sums stay in T.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda::diagonal {

inline constexpr int kChunk = 8;  ///< diagonals loaded together per thread

/// The diagonals of one row: offsets[begin, end); the value of diagonal d
/// for the row at v[(d - begin) * stride].
template <class T>
struct RowDiagonals {
  std::int64_t begin, end;
  const T* v;
  std::int64_t stride;
};

/// DIA: the layout is the number of diagonals, ndiag. Every row has all of
/// them; diagonal d of row i at values[d * rows + i]. (A plain integer, not
/// a struct: as a kernel parameter, an aggregate changed the code ptxas made
/// of the DIA kernel.)
template <class T>
__device__ __forceinline__ RowDiagonals<T> row_diagonals(std::int64_t ndiag, std::int64_t i,
                                                         std::int64_t rows, const T* values) {
  return {0, ndiag, values + i, rows};
}

/// HDI: row i has the diagonals of its hack h = i / hack, hack_ptr[h] ..
/// hack_ptr[h+1]; local diagonal d of local row r at values[hack·hack_ptr[h]
/// + d·hack_rows(h) + r], hack_rows(h) = hack except in a last, partial hack.
template <class I>
struct HdiLayout {
  std::int64_t hack;
  const I* hack_ptr;
};

template <class T, class I>
__device__ __forceinline__ RowDiagonals<T> row_diagonals(const HdiLayout<I>& layout, std::int64_t i,
                                                         std::int64_t rows, const T* values) {
  const std::int64_t hack = layout.hack;
  // 32-bit division when the rows allow it (a 64-bit one costs several times more).
  const std::int64_t h = rows <= UINT32_MAX && hack <= UINT32_MAX
                             ? static_cast<std::uint32_t>(i) / static_cast<std::uint32_t>(hack)
                             : i / hack;
  const std::int64_t first = h * hack;              // the hack's first row
  const std::int64_t hr = min(hack, rows - first);  // rows of this hack
  const std::int64_t d_begin = __ldg(layout.hack_ptr + h), d_end = __ldg(layout.hack_ptr + h + 1);
  return {d_begin, d_end, values + hack * d_begin + (i - first), hr};
}

/// y[i] = alpha * (row i of A) x + beta * y[i] for the rows i < rows, a
/// thread per row (see the top of this file). S: the stored value type, T
/// (DIA, HDI) or DIA-LP's reduced one, loaded as S and widened to T in a
/// register (widen, primitives.cuh); with S = T the code is DIA's as before.
template <class S, class T, class I, class Layout>
__global__ void __launch_bounds__(kBlock)
    rows_kernel(std::int64_t rows, std::int64_t cols, Layout layout, const I* __restrict__ offsets,
                const S* __restrict__ values, const T* __restrict__ x, T alpha, T beta,
                T* __restrict__ y) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  const RowDiagonals<S> r = row_diagonals(layout, i, rows, values);
  T sum = 0;
  for (std::int64_t d0 = r.begin; d0 < r.end; d0 += kChunk) {
    // Phase 1: the chunk's offsets (the same address across the warp or the
    // hack: broadcast).
    std::int64_t col[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      col[u] = d0 + u < r.end ? i + static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : -1;
    // Phase 2: independent loads of values (streamed once) and x.
    // The values stay in their stored type S until phase 3: widening each
    // one as it arrived put a use right after every load, and DIA-LP's loads
    // no longer overlapped (H100, stencil2d-5pt-n2000, f64: 103 us against
    // DIA's 85 us on twice the value bytes; 67 us once widened in phase 3,
    // bench/results/dia-lp-loads-*). With S = T the code is DIA's as before.
    S a[kChunk];
    T b[kChunk];
#pragma unroll
    for (int u = 0; u < kChunk; ++u) {
      const bool inside = col[u] >= 0 && col[u] < cols;  // false past the row's diagonals too
      a[u] = inside ? __ldcs(r.v + (d0 - r.begin + u) * r.stride) : S{0};
      b[u] = inside ? __ldg(x + col[u]) : T{0};
    }
    // Phase 3: multiply-add in diagonal order.
#pragma unroll
    for (int u = 0; u < kChunk; ++u)
      sum += widen<T>(a[u]) * b[u];
  }
  store_axpby(y, i, alpha, sum, beta);
}

// ---- several rows per thread (DIA, DIA-LP, SYM_DIA) ---------------------------
// A thread's kRows rows lie in a tile of kBlock·kRows rows: first + k·kBlock,
// so that each load of a warp still covers consecutive rows.

/// The first of this thread's kRows rows.
template <int kRows>
__device__ __forceinline__ std::int64_t tile_first_row() {
  return blockIdx.x * std::int64_t{kBlock * kRows} + threadIdx.x;
}

/// y[i] = alpha·sum[k] + beta·y[i] for this thread's rows i = first + k·kBlock
/// inside the matrix (y not read when beta = 0).
template <int kRows, class T>
__device__ __forceinline__ void store_tile_rows(T* y, std::int64_t first, std::int64_t rows,
                                                T alpha, const T (&sum)[kRows], T beta) {
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    const std::int64_t i = first + k * kBlock;
    if (i < rows) store_axpby(y, i, alpha, sum[k], beta);
  }
}

/// Blocks of kBlock threads for `rows` rows, kRows per thread, checked.
template <int kRows>
unsigned tile_grid(std::int64_t rows, const char* name) {
  return grid_size((rows + kRows - 1) / kRows, kBlock, name);
}

/// Whether a kernel takes its several-rows Shape (Shape::rows rows per
/// thread, at most Shape::max_diagonals diagonals, 0: any number): only on
/// matrices with at least as many rows as the device holds threads, where
/// the shapes were measured (below, one row per thread keeps every row in a
/// thread of its own).
template <class Shape>
bool takes_shape(std::int64_t rows, std::int64_t ndiag) {
  return Shape::rows > 1 && rows >= resident_threads() &&
         (Shape::max_diagonals == 0 || ndiag <= Shape::max_diagonals);
}

/// The offsets of diagonals d0 .. d0 + kChunkN - 1 (a broadcast: every
/// thread of a warp reads the same ones), has[u] = whether diagonal d0 + u
/// exists (off[u] = 0 where not).
template <int kChunkN, class I>
__device__ __forceinline__ void chunk_offsets(const I* __restrict__ offsets, std::int64_t d0,
                                              std::int64_t ndiag, std::int64_t (&off)[kChunkN],
                                              bool (&has)[kChunkN]) {
#pragma unroll
  for (int u = 0; u < kChunkN; ++u) {
    has[u] = d0 + u < ndiag;
    off[u] = has[u] ? static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : 0;
  }
}

/// DIA only (every row has every diagonal): rows_kernel with kRows rows per
/// thread, rows first + k·kBlock of a tile of kBlock·kRows rows (each load
/// of a warp still covers consecutive rows), and kChunkN diagonals per chunk:
/// the chunk's offsets are loaded once for the kRows rows, then kRows·kChunkN
/// values and x entries before any multiply. Each row is summed in diagonal
/// order, as in rows_kernel: the same result bit for bit.
template <int kRows, int kChunkN, class S, class T, class I>
__global__ void __launch_bounds__(kBlock)
    dia_rows_kernel(std::int64_t rows, std::int64_t cols, std::int64_t ndiag,
                    const I* __restrict__ offsets, const S* __restrict__ values,
                    const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::int64_t first = tile_first_row<kRows>();
  if (first >= rows) return;
  T sum[kRows] = {};
  for (std::int64_t d0 = 0; d0 < ndiag; d0 += kChunkN) {
    // Phase 1: the chunk's offsets (a broadcast), once for the kRows rows.
    std::int64_t off[kChunkN];
    bool has[kChunkN];
    chunk_offsets(offsets, d0, ndiag, off, has);
    // Phase 2: independent loads, values kept in their stored type S.
    S a[kRows][kChunkN];
    T b[kRows][kChunkN];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const std::int64_t i = first + k * kBlock;
#pragma unroll
      for (int u = 0; u < kChunkN; ++u) {
        const std::int64_t col = i + off[u];
        const bool inside = has[u] && i < rows && col >= 0 && col < cols;
        a[k][u] = inside ? __ldcs(values + (d0 + u) * rows + i) : S{0};
        b[k][u] = inside ? __ldg(x + col) : T{0};
      }
    }
    // Phase 3: multiply-add, each row in diagonal order.
#pragma unroll
    for (int k = 0; k < kRows; ++k)
#pragma unroll
      for (int u = 0; u < kChunkN; ++u)
        sum[k] += widen<T>(a[k][u]) * b[k][u];
  }
  store_tile_rows(y, first, rows, alpha, sum, beta);
}

/// DIA's shape by stored type S and vector type T: rows per thread and
/// diagonals per chunk of dia_rows_kernel, taken when the matrix has at most
/// max_diagonals diagonals (0: any number). The loads a thread keeps in
/// flight are what hides DRAM's latency, and a value of fewer bytes brings
/// fewer of them per load: one row per thread left DIA-LP at 62-74% of the
/// copy bandwidth in the bytes it moves, against DIA's 88-95%. H100, session
/// 13 (bench/profile/s13-diag-rows.sh, bench/results/diag-rows-*: the large
/// 5-, 7- and 27-point stencils and FEM b = 3, 0.73-4.0 M rows and 5-33
/// diagonals; time of the one-row kernel, kChunk diagonals, over the chosen
/// shape's):
///  - double values (DIA f64): 2 rows, 4 diagonals: 1.00-1.08x (2 rows, 8
///    diagonals: 0.90-0.94x, 96 registers). On FEM b = 6 (69 diagonals) it
///    was 0.92x in the gpu-check run of the same session, hence the cap;
///  - float values for double vectors (DIA-LP f64): 2 rows, 2 diagonals:
///    1.07-1.16x (4 rows, 4 diagonals: 1.03-1.13x); FEM b = 6 1.12x;
///  - bfloat16 for float (DIA-LP f32): 4 rows, 4 diagonals: 1.07-1.12x;
///    FEM b = 6 1.09x;
///  - float (DIA f32): one row, as before (no other shape was faster on all
///    four: 0.89-1.04x).
/// With float values and an even number of rows dia_pairs_kernel comes
/// first (takes_pairs, session 14), so the float shapes above serve the
/// rest: an odd number of rows, values not 8-byte aligned (a view into the
/// caller's memory), DIA-LP f64 with fewer than 16 diagonals.
template <class S, class T>
struct DiaShape {
  static constexpr int rows = 1, chunk = kChunk, max_diagonals = 0;
};
template <>
struct DiaShape<double, double> {
  static constexpr int rows = 2, chunk = 4, max_diagonals = 48;
};
template <>
struct DiaShape<float, double> {
  static constexpr int rows = 2, chunk = 2, max_diagonals = 0;
};
template <>
struct DiaShape<std::uint16_t, float> {
  static constexpr int rows = 4, chunk = 4, max_diagonals = 0;
};

/// DIA only, float values: two adjacent rows i0, i0 + 1 per thread (i0
/// even), each diagonal's two values in one 8-byte load, kChunkN diagonals
/// per chunk; x per row, guarded as in rows_kernel; each row summed in
/// diagonal order (the same result bit for bit). Needs an even number of
/// rows, so that every diagonal's pair starts 8-byte aligned.
template <int kChunkN, class T, class I>
__global__ void __launch_bounds__(kBlock)
    dia_pairs_kernel(std::int64_t rows, std::int64_t cols, std::int64_t ndiag,
                     const I* __restrict__ offsets, const float* __restrict__ values,
                     const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::int64_t i0 = (blockIdx.x * std::int64_t{kBlock} + threadIdx.x) * 2;
  if (i0 >= rows) return;
  T sum[2] = {};
  for (std::int64_t d0 = 0; d0 < ndiag; d0 += kChunkN) {
    // Phase 1: the chunk's offsets (a broadcast).
    std::int64_t off[kChunkN];
    bool has[kChunkN];
    chunk_offsets(offsets, d0, ndiag, off, has);
    // Phase 2: a pair of values and two x entries per diagonal (zeros
    // outside the matrix, where x is not read).
    float a[kChunkN][2];
    T b[kChunkN][2];
#pragma unroll
    for (int u = 0; u < kChunkN; ++u) {
      const float2 pair =
          has[u] ? __ldcs(reinterpret_cast<const float2*>(values + (d0 + u) * rows + i0))
                 : float2{0.0F, 0.0F};
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const std::int64_t col = i0 + k + off[u];
        const bool inside = has[u] && col >= 0 && col < cols;
        a[u][k] = inside ? (k == 0 ? pair.x : pair.y) : 0.0F;
        b[u][k] = inside ? __ldg(x + col) : T{0};
      }
    }
    // Phase 3: multiply-add, each row in diagonal order.
#pragma unroll
    for (int u = 0; u < kChunkN; ++u)
#pragma unroll
      for (int k = 0; k < 2; ++k)
        sum[k] += static_cast<T>(a[u][k]) * b[u][k];
  }
  store_axpby(y, i0, alpha, sum[0], beta);
  store_axpby(y, i0 + 1, alpha, sum[1], beta);
}

/// Whether DIA's float values (DIA f32, DIA-LP f64: vectors of type T) take
/// dia_pairs_kernel: on matrices of at least as many rows as the device
/// holds threads (as takes_shape), an even number of them, 8-byte aligned
/// values and, for double vectors, at least 16 diagonals. H100, session 14,
/// time of the kernel used before over this one's:
///  - as an experiment (bench/results/dia-pairs-*-s14-8305d80-*, branch
///    s14-exp; the large 5-, 7- and 27-point stencils, FEM b = 3 and 6,
///    banded b = 8): DIA-LP f64 (before: 2 strided rows per thread)
///    1.01-1.08x, DIA f32 (before: one row per thread) 0.99-1.13x; not
///    taken: DIA f64 (pairs of doubles: 0.96-1.00x, it keeps its 2 strided
///    rows), DIA-LP f32 (pairs of bfloat16: 0.95-1.15x);
///  - as committed, in the bench over the large members
///    (bench/results/large-*-s14-b8745d3.json.gz against the s13-2146cab
///    bench): DIA f32 0.98-1.11x (1.04x geomean over 8); DIA-LP f64
///    1.05-1.07x with 18-69 diagonals (FEM b = 2, 3, 6, the 27-point
///    stencil) but 0.96-0.98x with 5-9 (the 5-, 7-, 9-point stencils,
///    banded), hence the floor, which the experiment had not shown (1.01 on
///    those; not profiled).
template <class T>
bool takes_pairs(std::int64_t rows, std::int64_t ndiag, const void* values) {
  constexpr std::int64_t kMinDiagonals = std::is_same_v<T, double> ? 16 : 0;
  return rows % 2 == 0 && reinterpret_cast<std::uintptr_t>(values) % 8 == 0 &&
         ndiag >= kMinDiagonals && rows >= resident_threads();
}

/// DIA and DIA-LP over the rows of a rows × cols matrix with ndiag
/// diagonals on `stream`, checked: dia_pairs_kernel for float values where
/// the matrix takes it (takes_pairs), else dia_rows_kernel in DiaShape<S, T>
/// where it takes that (takes_shape), else rows_kernel.
template <class S, class T, class I>
void launch_dia(const char* name, std::int64_t rows, std::int64_t cols, std::int64_t ndiag,
                const I* offsets, const S* values, const T* x, T alpha, T beta, T* y,
                cudaStream_t stream) {
  if constexpr (std::is_same_v<S, float>) {
    if (takes_pairs<T>(rows, ndiag, values)) {
      dia_pairs_kernel<2><<<grid_size(rows / 2, kBlock, name), kBlock, 0, stream>>>(
          rows, cols, ndiag, offsets, values, x, alpha, beta, y);
      check_launch(name);
      return;
    }
  }
  using Shape = DiaShape<S, T>;
  if constexpr (Shape::rows > 1) {
    if (takes_shape<Shape>(rows, ndiag)) {
      dia_rows_kernel<Shape::rows, Shape::chunk>
          <<<tile_grid<Shape::rows>(rows, name), kBlock, 0, stream>>>(rows, cols, ndiag, offsets,
                                                                      values, x, alpha, beta, y);
      check_launch(name);
      return;
    }
  }
  rows_kernel<<<grid_size(rows, kBlock, name), kBlock, 0, stream>>>(rows, cols, ndiag, offsets,
                                                                    values, x, alpha, beta, y);
  check_launch(name);
}

/// Enqueues rows_kernel over the rows of a rows × cols matrix on `stream`,
/// checked.
template <class S, class T, class I, class Layout>
void launch_rows(const char* name, std::int64_t rows, std::int64_t cols, Layout layout,
                 const I* offsets, const S* values, const T* x, T alpha, T beta, T* y,
                 cudaStream_t stream) {
  const unsigned grid = grid_size(rows, kBlock, name);
  rows_kernel<<<grid, kBlock, 0, stream>>>(rows, cols, layout, offsets, values, x, alpha, beta, y);
  check_launch(name);
}

}  // namespace spx::cuda::diagonal
