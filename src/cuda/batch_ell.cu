// Batched ELLPACK-R SpMV, one thread block per matrix (Anzt et al. 2017,
// §3.6): a thread per row walks its row's slots left to right; slots are
// column major, so the threads of a warp read consecutive addresses. Only the
// first row_len slots of a row are read (padding never is).
#include "core/instantiate.hpp"
#include "cuda/batch_common.cuh"

namespace spx::cuda {
namespace batch {
namespace {

template <class T, class I, class X>
__device__ void ell_rows(const I* __restrict__ len, const I* __restrict__ col,
                         const T* __restrict__ val, X x, std::int64_t m, T alpha, T beta,
                         T* __restrict__ y) {
  for (std::int64_t r = threadIdx.x; r < m; r += blockDim.x) {
    T sum = 0;
    const std::int64_t l = len[r];
    for (std::int64_t j = 0; j < l; ++j) {
      const std::int64_t k = j * m + r;
      sum += val[k] * x[col[k]];
    }
    store_axpby(y, r, alpha, sum, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    ell_rows_kernel(const std::int64_t* __restrict__ row_off,
                    const std::int64_t* __restrict__ col_off,
                    const std::int64_t* __restrict__ val_off, const I* __restrict__ row_len,
                    const I* __restrict__ col_idx, const T* __restrict__ values,
                    const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                    std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(row_off, col_off, val_off, b);
  if (s.m == 0) return;
  const I* len = row_len + s.row0;
  const I* col = col_idx + s.val0;
  const T* val = values + s.val0;
  with_x(x, s, stage, [&](auto xb) { ell_rows(len, col, val, xb, s.m, alpha, beta, y + s.row0); });
}

}  // namespace
}  // namespace batch

template <Value T, Index I>
void batch_ell_rows(T alpha, const BatchEll<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_ell_rows");
  const int threads = batch::threads_for(A.max_rows());
  const std::int64_t stage = batch::stage_entries<T>(A.max_cols());
  batch::launch_blocks<T>(batch::ell_rows_kernel<T, I>, A.count(), threads, stage, ctx.stream,
                          "batch ell_rows_kernel", A.row_offsets().data(), A.col_offsets().data(),
                          A.value_offsets().data(), A.row_len().data(), A.col_idx().data(),
                          A.values().data(), x, alpha, beta, y);
}

#define SPX_INST(T, I) \
  template void batch_ell_rows(T, const BatchEll<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
