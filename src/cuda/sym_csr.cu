// SYM_CSR SpMV on the GPU: y = alpha·(L + D + Lᵀ)·x + beta·y from the lower
// triangle alone. y is first scaled by beta (zeros without reading it when
// beta = 0); then V consecutive lanes per stored row (V from the mean stored
// row length, as CSR's adaptive kernel) stride over the row's entries: each
// entry adds a_ij·x_j to the row's sum and, off the diagonal, atomically adds
// its mirror alpha·a_ij·x_i to y_j. The row's lanes reduce their sums with
// shuffles and the first adds alpha·sum to y_i atomically (other rows'
// mirrors land there concurrently). One read of the lower triangle instead of
// two of the full matrix, at the price of one atomic per stored off-diagonal
// entry; not deterministic (atomics add in any order).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/register.hpp"

namespace spx::cuda {
namespace {

constexpr int kSymUnroll = 4;  ///< entries per lane per batch (as CSR's V-lane kernels)

template <int V, int U, class T, class I>
__global__ void __launch_bounds__(kBlock)
    sym_csr_rows_kernel(std::int64_t rows, const I* __restrict__ row_ptr, const I* __restrict__ col,
                        const T* __restrict__ val, const T* __restrict__ x, T alpha, T* y) {
  const std::int64_t thread = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  const std::int64_t row = thread / V;
  const int sub = static_cast<int>(threadIdx.x % V);
  const bool active = row < rows;  // lanes past the last row stay for the shuffles
  T sum = 0;
  bool any = false;
  if (active) {
    const std::int64_t b = row_ptr[row], e = row_ptr[row + 1];
    any = e > b;
    const T mirror = alpha * __ldg(x + row);
    // Batches of U entries per lane: every load of a batch (indices and
    // values, then x) issued before its first product and atomic.
    for (std::int64_t k = b + sub; k < e; k += U * V) {
      std::int64_t c[U];
      T v[U], xv[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const bool in = k + u * V < e;
        c[u] = in ? static_cast<std::int64_t>(col[k + u * V]) : row;  // row: no mirror
        v[u] = in ? val[k + u * V] : T{0};
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
        xv[u] = __ldg(x + c[u]);
#pragma unroll
      for (int u = 0; u < U; ++u)
        if (k + u * V < e) {  // not 0·x[row]: an infinite x_row must not leak in
          sum += v[u] * xv[u];
          if (c[u] != row) atomicAdd(y + c[u], v[u] * mirror);
        }
    }
  }
  const T total = group_sum<V>(sum);
  if (active && sub == 0 && any) atomicAdd(y + row, alpha * total);
}

template <int V, class T, class I>
void launch_sym_rows(T alpha, const SymCsr<T, I>& A, const T* x, T* y, cudaStream_t stream) {
  const std::int64_t rows = A.rows();
  const unsigned grid = grid_size(rows * V, kBlock, "sym_csr_rows_kernel");
  sym_csr_rows_kernel<V, kSymUnroll><<<grid, kBlock, 0, stream>>>(
      rows, A.row_ptr().data(), A.col_idx().data(), A.values().data(), x, alpha, y);
  check_launch("sym_csr_rows_kernel");
}

}  // namespace

template <Value T, Index I>
void spmv_sym_csr_atomic(T alpha, const SymCsr<T, I>& A, const T* x, T beta, T* y,
                         const ExecContext& ctx) {
  if (beta != T{1}) detail::cuda_scale(beta, y, A.rows(), ctx);
  const double mean = static_cast<double>(A.stored()) / static_cast<double>(A.rows());
  with_constant<32, 1, 2, 4, 8, 16>(
      adaptive_width(mean), [&]<int V>() { launch_sym_rows<V>(alpha, A, x, y, ctx.stream); });
}

#define SPX_INST(T, I) \
  template void spmv_sym_csr_atomic(T, const SymCsr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
