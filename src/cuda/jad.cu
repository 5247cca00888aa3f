// JAD (jagged diagonals, survey §4.6) SpMV on the GPU: one thread per stored
// row i (rows sorted by decreasing length), over the jagged diagonals that
// reach it: entry d of stored row i at jd_ptr[d] + i. Consecutive threads
// read consecutive addresses of each diagonal (coalesced), and all threads of
// a warp read the same jd_ptr[d] (a broadcast). The row's length, the number
// of diagonals longer than i, is found by a binary search over the
// non-increasing diagonal lengths; then four entries are loaded per round.
// The result goes to y[perm[i]]. There is no padding. Deterministic.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda {

namespace {

template <class T, class I>
__global__ void __launch_bounds__(kBlock)
    jad_kernel(std::int64_t rows, std::int64_t diagonals, const I* __restrict__ perm,
               const I* __restrict__ jd_ptr, const I* __restrict__ col, const T* __restrict__ val,
               const T* __restrict__ x, T alpha, T beta, T* __restrict__ y) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  // Phase 1: the row's length = the first diagonal not reaching row i (the
  // diagonal lengths jd_ptr[d+1] - jd_ptr[d] do not increase with d).
  std::int64_t lo = 0, hi = diagonals;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (static_cast<std::int64_t>(__ldg(jd_ptr + mid + 1)) - __ldg(jd_ptr + mid) > i) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const std::int64_t n = lo;
  // Phase 2: the row's entries, four independent loads per round.
  T sum = 0;
  std::int64_t d = 0;
  for (; d + 3 < n; d += 4) {
    const std::int64_t k0 = __ldg(jd_ptr + d) + i, k1 = __ldg(jd_ptr + d + 1) + i;
    const std::int64_t k2 = __ldg(jd_ptr + d + 2) + i, k3 = __ldg(jd_ptr + d + 3) + i;
    add_four(sum, col, val, x, k0, k1, k2, k3);
  }
  for (; d < n; ++d) {
    const std::int64_t k = __ldg(jd_ptr + d) + i;
    sum += val[k] * __ldg(x + col[k]);
  }
  // Phase 3: store through the permutation (y not read when beta == 0).
  store_axpby(y, static_cast<std::int64_t>(perm[i]), alpha, sum, beta);
}

}  // namespace

template <Value T, Index I>
void spmv_jad(T alpha, const Jad<T, I>& A, const T* x, T beta, T* y, const ExecContext& ctx) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows, kBlock, "jad_kernel");
  jad_kernel<<<grid, kBlock, 0, ctx.stream>>>(rows, A.num_diagonals(), A.perm().data(),
                                              A.jd_ptr().data(), A.col_idx().data(),
                                              A.values().data(), x, alpha, beta, y);
  check_launch("jad_kernel");
}

#define SPX_INST(T, I) \
  template void spmv_jad(T, const Jad<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
