// Dense helpers of the SpMM dispatcher and baselines: C = beta*C for the
// trivial cases, and CSR → dense (column-major) for the cuBLAS GEMM baseline.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/register.hpp"
#include "cuda/spmm.hpp"

namespace spx {
namespace cuda {
namespace {

/// C = beta*C over m×n entries, element (i, j) at data[i*rs + j*cs]; the
/// flat index runs along C's contiguous dimension. beta = 0 writes zeros
/// without reading C.
template <class T>
__global__ void scale_dense_kernel(T beta, T* __restrict__ data, std::int64_t m, std::int64_t n,
                                   std::int64_t rs, std::int64_t cs, bool row_major) {
  const std::int64_t total = m * n;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = row_major ? e / n : e % m;
    const std::int64_t j = row_major ? e % n : e / m;
    T* c = data + i * rs + j * cs;
    *c = beta == T{0} ? T{0} : beta * *c;
  }
}

/// Scatter: warp per row, lanes over the row's nonzeros; D is column-major
/// m×k with ld = m and was zeroed before.
template <class T, class I>
__global__ void csr_to_dense_kernel(std::int64_t m, const I* __restrict__ ptr,
                                    const I* __restrict__ col, const T* __restrict__ val,
                                    T* __restrict__ D) {
  const std::int64_t row = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / 32;
  if (row >= m) return;
  for (std::int64_t k = std::int64_t{ptr[row]} + threadIdx.x % 32; k < ptr[row + 1]; k += 32)
    D[row + static_cast<std::int64_t>(col[k]) * m] = val[k];
}

}  // namespace

template <Value T, Index I>
void csr_to_dense_col_major(const Csr<T, I>& A, T* D, const ExecContext& ctx) {
  const std::int64_t m = A.rows(), k = A.cols();
  check(cudaMemsetAsync(D, 0, static_cast<std::size_t>(m * k) * sizeof(T), ctx.stream),
        "cudaMemsetAsync (densify)");
  if (m == 0 || A.nnz() == 0) return;
  const unsigned blocks = grid_size(m * 32, kBlock, "csr_to_dense_kernel");
  csr_to_dense_kernel<T, I><<<blocks, kBlock, 0, ctx.stream>>>(
      m, A.row_ptr().data(), A.col_idx().data(), A.values().data(), D);
  check_launch("csr_to_dense_kernel");
}

#define SPX_INST(T, I) \
  template void csr_to_dense_col_major(const Csr<T, I>&, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace cuda

namespace detail {

template <Value T>
void cuda_scale_dense(T beta, DenseView<T> C, const ExecContext& ctx) {
  const std::int64_t total = C.rows * C.cols;
  if (total == 0 || beta == T{1}) return;
  const bool row_major = C.layout == Layout::RowMajor;
  const std::int64_t rs = row_major ? C.ld : 1, cs = row_major ? 1 : C.ld;
  cuda::scale_dense_kernel<<<cuda::stride_grid(total), cuda::kBlock, 0, ctx.stream>>>(
      beta, C.data, C.rows, C.cols, rs, cs, row_major);
  cuda::check_launch("scale_dense_kernel");
}

template void cuda_scale_dense(float, DenseView<float>, const ExecContext&);
template void cuda_scale_dense(double, DenseView<double>, const ExecContext&);

}  // namespace detail
}  // namespace spx
