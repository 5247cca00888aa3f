// SYM_DIA SpMV on the GPU: a thread per row, as DIA's diagonal row kernel
// (diag_rows.cuh), over the diagonals of offset o <= 0 only; row i takes each
// twice, its stored part and its mirrored (upper) part:
//
//   y_i = alpha · ( Σ_d L_d[i] x[i + o_d] + Σ_{d: o_d < 0} L_d[i − o_d] x[i − o_d] ) + beta · y_i
//
// with L_d[i] = values[d · rows + i]. Both reads are coalesced across a warp
// (consecutive rows read consecutive values of one diagonal, and consecutive
// x entries); the stored read of a value comes |o_d| rows after its mirrored
// read, so, for the bands this format is for, it hits the L2 and each value
// leaves DRAM about once (ncu on stencil3d-7pt-n144-sym: 119 MB read, the
// values and x once): about half of DIA's value traffic for a symmetric
// band. No scatter, no atomics: deterministic (one thread sums its row in
// a fixed order).
//
// The diagonals are taken kSymChunk = 2 at a time (f32 on large matrices: 4
// rows per thread, 1 diagonal at a time, SymShape): the 2 offsets (the same
// address across the warp: a broadcast), then the 2 + 2 values and 2 + 2 x
// entries, then the multiply-adds. Measured on an H100 (f64, the three large
// symmetric members, speed-up over the best full-storage kernel, geomean):
// 1 diagonal at a time 1.35, 2: 1.40, 4: 1.36, 8: 1.08 (registers: fewer
// resident warps hide less latency than more loads per thread buy). Positions
// outside the matrix (column i + o < 0, or i − o >= rows) are skipped, so
// neither x nor values is read out of bounds; the mirrored read never meets
// padding (row i − o >= −o lies on the diagonal). The mirrored read comes
// first in time (row i − o runs later), so the stored read is the value's
// last use: it is loaded evict-first (__ldcs), the mirrored one cached.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/diag_rows.cuh"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {

namespace {

constexpr int kSymChunk = 2;  ///< diagonals loaded together per thread

/// kRows rows per thread (rows first + k·kBlock), kChunkN diagonals per
/// chunk; each row summed in the same order whatever the shape.
template <int kRows, int kChunkN, class T, class I>
__global__ void __launch_bounds__(kBlock)
    sym_dia_kernel(std::int64_t rows, std::int64_t ndiag, const I* __restrict__ offsets,
                   const T* __restrict__ values, const T* __restrict__ x, T alpha, T beta,
                   T* __restrict__ y) {
  const std::int64_t first = diagonal::tile_first_row<kRows>();
  if (first >= rows) return;
  T sum[kRows] = {};
  for (std::int64_t d0 = 0; d0 < ndiag; d0 += kChunkN) {
    // Phase 1: the chunk's offsets (1 marks a diagonal past the last: it is
    // neither stored nor mirrored).
    std::int64_t o[kChunkN];
#pragma unroll
    for (int u = 0; u < kChunkN; ++u)
      o[u] = d0 + u < ndiag ? static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : 1;
    // Phase 2: independent loads of the stored and mirrored values and their x.
    T a[kRows][kChunkN], b[kRows][kChunkN], c[kRows][kChunkN], e[kRows][kChunkN];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const std::int64_t i = first + k * kBlock;
#pragma unroll
      for (int u = 0; u < kChunkN; ++u) {
        const T* vd = values + (d0 + u) * rows;
        const bool low = i < rows && o[u] <= 0 && i + o[u] >= 0;
        const bool up = o[u] < 0 && i - o[u] < rows;
        a[k][u] = low ? __ldcs(vd + i) : T{0};  // the value's last use: evict first
        b[k][u] = low ? __ldg(x + i + o[u]) : T{0};
        c[k][u] = up ? __ldg(vd + i - o[u]) : T{0};
        e[k][u] = up ? __ldg(x + i - o[u]) : T{0};
      }
    }
    // Phase 3: multiply-add in diagonal order, stored part before mirror.
#pragma unroll
    for (int k = 0; k < kRows; ++k)
#pragma unroll
      for (int u = 0; u < kChunkN; ++u) {
        sum[k] += a[k][u] * b[k][u];
        sum[k] += c[k][u] * e[k][u];
      }
  }
  diagonal::store_tile_rows(y, first, rows, alpha, sum, beta);
}

template <int kRows, int kChunkN, class T, class I>
void launch_sym(std::int64_t rows, std::int64_t ndiag, const I* o, const T* v, const T* x, T alpha,
                T beta, T* y, cudaStream_t s) {
  sym_dia_kernel<kRows, kChunkN>
      <<<diagonal::tile_grid<kRows>(rows, "sym_dia_kernel"), kBlock, 0, s>>>(rows, ndiag, o, v, x,
                                                                             alpha, beta, y);
  check_launch("sym_dia_kernel");
}

/// SYM_DIA's shape by value type: rows per thread and diagonals per chunk,
/// where the matrix takes it (diagonal::takes_shape: as many rows as the
/// device holds threads, at most max_diagonals stored diagonals; measured on
/// 4-17: larger bands keep one row per thread until measured).
/// H100, session 13 (bench/profile/s13-diag-rows.sh, bench/results/diag-rows-*;
/// the large symmetric 7- and 27-point stencils and FEM b = 3), time of one
/// row and 2 diagonals over the shape's: f32, 4 rows and 1 diagonal:
/// 1.05-1.07x; f64: no other shape faster (2 rows: 0.93-0.99x, 4 rows and 1
/// diagonal: 0.92-1.00x, 1 row and 4 diagonals: 0.95-1.01x).
template <class T>
struct SymShape {
  static constexpr int rows = 1, chunk = kSymChunk, max_diagonals = 0;
};
template <>
struct SymShape<float> {
  static constexpr int rows = 4, chunk = 1, max_diagonals = 24;
};

}  // namespace

template <Value T, Index I>
void spmv_sym_dia(T alpha, const SymDia<T, I>& A, const T* x, T beta, T* y,
                  const ExecContext& ctx) {
  const std::int64_t rows = A.rows();
  const I* o = A.offsets().data();
  const T* v = A.values().data();
  using Shape = SymShape<T>;
  if (diagonal::takes_shape<Shape>(rows, A.ndiag()))
    launch_sym<Shape::rows, Shape::chunk>(rows, A.ndiag(), o, v, x, alpha, beta, y, ctx.stream);
  else
    launch_sym<1, kSymChunk>(rows, A.ndiag(), o, v, x, alpha, beta, y, ctx.stream);
}

#define SPX_INST(T, I) \
  template void spmv_sym_dia(T, const SymDia<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
