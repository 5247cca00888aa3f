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
// The diagonals are taken kSymChunk = 2 at a time: the 2 offsets (the same
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
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {

namespace {

constexpr int kSymChunk = 2;  ///< diagonals loaded together per thread

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    sym_dia_kernel(std::int64_t rows, std::int64_t ndiag, const I* __restrict__ offsets,
                   const T* __restrict__ values, const T* __restrict__ x, T alpha, T beta,
                   T* __restrict__ y) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  T sum = 0;
  for (std::int64_t d0 = 0; d0 < ndiag; d0 += kSymChunk) {
    // Phase 1: the chunk's offsets (1 marks a diagonal past the last: it is
    // neither stored nor mirrored).
    std::int64_t o[kSymChunk];
#pragma unroll
    for (int u = 0; u < kSymChunk; ++u)
      o[u] = d0 + u < ndiag ? static_cast<std::int64_t>(__ldg(offsets + d0 + u)) : 1;
    // Phase 2: independent loads of the stored and mirrored values and their x.
    T a[kSymChunk], b[kSymChunk], c[kSymChunk], e[kSymChunk];
#pragma unroll
    for (int u = 0; u < kSymChunk; ++u) {
      const T* vd = values + (d0 + u) * rows;
      const bool low = o[u] <= 0 && i + o[u] >= 0;
      const bool up = o[u] < 0 && i - o[u] < rows;
      a[u] = low ? __ldcs(vd + i) : T{0};  // the value's last use: evict first
      b[u] = low ? __ldg(x + i + o[u]) : T{0};
      c[u] = up ? __ldg(vd + i - o[u]) : T{0};
      e[u] = up ? __ldg(x + i - o[u]) : T{0};
    }
    // Phase 3: multiply-add in diagonal order, stored part before mirror.
#pragma unroll
    for (int u = 0; u < kSymChunk; ++u) {
      sum += a[u] * b[u];
      sum += c[u] * e[u];
    }
  }
  store_axpby(y, i, alpha, sum, beta);
}

}  // namespace

template <Value T, Index I>
void spmv_sym_dia(T alpha, const SymDia<T, I>& A, const T* x, T beta, T* y,
                  const ExecContext& ctx) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows, kBlock, "sym_dia_kernel");
  sym_dia_kernel<<<grid, kBlock, 0, ctx.stream>>>(rows, A.ndiag(), A.offsets().data(),
                                                  A.values().data(), x, alpha, beta, y);
  check_launch("sym_dia_kernel");
}

#define SPX_INST(T, I) \
  template void spmv_sym_dia(T, const SymDia<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
