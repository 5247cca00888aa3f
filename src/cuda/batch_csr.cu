// Batched CSR SpMV, one thread block per matrix (Anzt, Collins, Dongarra,
// Flegar, Quintana-Ortí 2017, §3.4-3.5): scalar, vector, smart and CSR-I.
//
// Every kernel first stages its matrix's x in shared memory when it fits the
// staging buffer (sized to the largest x of the batch, capped by the shared
// memory one block may use); a matrix whose x does not fit reads x through
// the read-only cache instead. The choice is per block, so one launch mixes
// both paths. Empty matrices (no rows) return at once; empty rows get
// beta*y.
#include "core/instantiate.hpp"
#include "cuda/batch_common.cuh"

namespace spx::cuda {
namespace batch {
namespace {

// ---- CSR scalar: thread per row ----------------------------------------------

template <class T, class I, class X>
__device__ void scalar_rows(const I* __restrict__ ptr, const I* __restrict__ col,
                            const T* __restrict__ val, X x, std::int64_t m, T alpha, T beta,
                            T* __restrict__ y) {
  for (std::int64_t r = threadIdx.x; r < m; r += blockDim.x) {
    T sum = 0;
    const std::int64_t end = ptr[r + 1];
    for (std::int64_t k = ptr[r]; k < end; ++k)
      sum += val[k] * x[col[k]];
    store(y, r, alpha, sum, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    csr_scalar_kernel(CsrView<T, I> A, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                      std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(A.row_off, A.col_off, A.val_off, b);
  if (s.m == 0) return;
  const I* ptr = A.ptr(b, s.row0);
  const I* col = A.cols(s.val0);
  const T* val = A.values + s.val0;
  if (s.n <= stage) {
    // Stage x, then multiply from shared memory.
    T* xs = shared_buffer<T>();
    stage_x(xs, x + s.col0, s.n);
    __syncthreads();
    scalar_rows(ptr, col, val, SharedX<T>{xs}, s.m, alpha, beta, y + s.row0);
  } else {
    scalar_rows(ptr, col, val, GlobalX<T>{x + s.col0}, s.m, alpha, beta, y + s.row0);
  }
}

// ---- CSR vector: warp per row ------------------------------------------------

template <class T, class I, class X>
__device__ void vector_rows(const I* __restrict__ ptr, const I* __restrict__ col,
                            const T* __restrict__ val, X x, std::int64_t m, T alpha, T beta,
                            T* __restrict__ y) {
  const int lane = threadIdx.x & 31;
  const int warps = blockDim.x >> 5;
  // The row is the same for all lanes of a warp, so the shuffles below see
  // the whole warp.
  for (std::int64_t r = threadIdx.x >> 5; r < m; r += warps) {
    T sum = 0;
    const std::int64_t end = ptr[r + 1];
    for (std::int64_t k = ptr[r] + lane; k < end; k += 32)
      sum += val[k] * x[col[k]];
    sum = warp_sum(sum);
    if (lane == 0) store(y, r, alpha, sum, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    csr_vector_kernel(CsrView<T, I> A, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                      std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(A.row_off, A.col_off, A.val_off, b);
  if (s.m == 0) return;
  const I* ptr = A.ptr(b, s.row0);
  const I* col = A.cols(s.val0);
  const T* val = A.values + s.val0;
  if (s.n <= stage) {
    T* xs = shared_buffer<T>();
    stage_x(xs, x + s.col0, s.n);
    __syncthreads();
    vector_rows(ptr, col, val, SharedX<T>{xs}, s.m, alpha, beta, y + s.row0);
  } else {
    vector_rows(ptr, col, val, GlobalX<T>{x + s.col0}, s.m, alpha, beta, y + s.row0);
  }
}

// ---- CSR smart: a vector of threads per row, its length chosen per matrix ----

template <class T, class I, class X>
__device__ void smart_rows(const I* __restrict__ ptr, const I* __restrict__ col,
                           const T* __restrict__ val, X x, std::int64_t m, int vlen, T alpha,
                           T beta, T* __restrict__ y) {
  const int lane = threadIdx.x & (vlen - 1);
  const int group = threadIdx.x / vlen;
  const int groups = blockDim.x / vlen;
  // Rounds of `groups` rows: the trip count is the same for the whole block,
  // so every lane reaches the shuffles (rows past the end contribute 0).
  for (std::int64_t base = 0; base < m; base += groups) {
    const std::int64_t r = base + group;
    T sum = 0;
    if (r < m) {
      const std::int64_t end = ptr[r + 1];
      for (std::int64_t k = ptr[r] + lane; k < end; k += vlen)
        sum += val[k] * x[col[k]];
    }
    for (int off = vlen >> 1; off > 0; off >>= 1)
      sum += __shfl_down_sync(kFullMask, sum, off, vlen);
    if (r < m && lane == 0) store(y, r, alpha, sum, beta);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    csr_smart_kernel(CsrView<T, I> A, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                     std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(A.row_off, A.col_off, A.val_off, b);
  if (s.m == 0) return;
  // This matrix's vector length, from its own mean row length.
  const int vlen = detail::vector_length(s.slots, s.m);
  const I* ptr = A.ptr(b, s.row0);
  const I* col = A.cols(s.val0);
  const T* val = A.values + s.val0;
  if (s.n <= stage) {
    T* xs = shared_buffer<T>();
    stage_x(xs, x + s.col0, s.n);
    __syncthreads();
    smart_rows(ptr, col, val, SharedX<T>{xs}, s.m, vlen, alpha, beta, y + s.row0);
  } else {
    smart_rows(ptr, col, val, GlobalX<T>{x + s.col0}, s.m, vlen, alpha, beta, y + s.row0);
  }
}

// ---- CSR-I: equal nonzero shares per warp ------------------------------------

/// Warp `warp` of `warps` multiplies the nonzeros of its share in tiles of 32
/// consecutive entries; each lane finds its row by walking the row pointer
/// from the tile's first row, the warp sums runs of equal rows, and the first
/// lane of each run adds the run's sum through `acc`.
template <class T, class I, class X, class Acc>
__device__ void balanced_share(const I* __restrict__ ptr, const I* __restrict__ col,
                               const T* __restrict__ val, X x, std::int64_t nnz,
                               const I* __restrict__ starts, int warps, Acc acc) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const std::int64_t begin = detail::chunk_begin(warp, nnz, warps);
  const std::int64_t end = detail::chunk_begin(warp + 1, nnz, warps);
  if (begin >= end) return;  // the whole warp: its share is empty
  std::int64_t row = starts[warp];
  for (std::int64_t base = begin; base < end; base += 32) {
    const std::int64_t k = base + lane;
    const bool valid = k < end;
    std::int64_t r = row;
    T v = 0;
    if (valid) {
      while (ptr[r + 1] <= k)
        ++r;
      v = val[k] * x[col[k]];
    }
    bool head = false;
    const T sum = segmented_sum(valid ? r : std::int64_t{-1}, v, &head);
    if (valid && head) acc.add(r, sum);
    // The next tile starts in the row of this tile's last entry.
    row = __shfl_sync(kFullMask, r, 31);
  }
}

template <class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    csr_balanced_kernel(CsrView<T, I> A, const I* __restrict__ starts, int warps,
                        const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                        std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(A.row_off, A.col_off, A.val_off, b);
  if (s.m == 0) return;
  const I* ptr = A.ptr(b, s.row0);
  const I* col = A.cols(s.val0);
  const T* val = A.values + s.val0;
  const I* st = starts + (A.uniform ? 0 : b * warps);
  T* yb = y + s.row0;
  if (s.n + s.m <= stage) {
    // Phase 1: stage x and zero the row accumulators (shared memory).
    T* xs = shared_buffer<T>();
    T* acc = xs + s.n;
    stage_x(xs, x + s.col0, s.n);
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      acc[r] = T(0);
    __syncthreads();
    // Phase 2: each warp adds the run sums of its share.
    balanced_share(ptr, col, val, SharedX<T>{xs}, s.slots, st, warps, SharedAcc<T>{acc});
    __syncthreads();
    // Phase 3: y = alpha*acc + beta*y.
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      store(yb, r, alpha, acc[r], beta);
  } else {
    // Phase 1: y = beta*y (rows without entries keep it).
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      yb[r] = beta == T(0) ? T(0) : beta * yb[r];
    __syncthreads();
    // Phase 2: each warp adds alpha times its run sums to y atomically.
    balanced_share(ptr, col, val, GlobalX<T>{x + s.col0}, s.slots, st, warps,
                   GlobalAcc<T>{yb, alpha});
  }
}

// ---- per-batch preprocessing kept in the structure cache ---------------------

template <class T, class I>
const SmartGeometry& smart_geometry(const BatchCsr<T, I>& A) {
  return A.structure_cache().template get<SmartGeometry>([&] {
    const auto rows = A.host_row_offsets();
    const auto nnz = A.host_nnz_offsets();
    std::int64_t most = 1;
    for (std::int64_t i = 0; i < A.count(); ++i) {
      const std::int64_t m = rows[i + 1] - rows[i];
      most = std::max(most, m * detail::vector_length(nnz[i + 1] - nnz[i], m));
    }
    return SmartGeometry{threads_for(most)};
  });
}

template <class T, class I>
const BalancedPlan<I>& balanced_plan(const BatchCsr<T, I>& A, int warps) {
  return A.structure_cache().template get<BalancedPlan<I>>(warps, [&] {
    const std::vector<I> ptr = A.row_ptr().to_vector();
    const std::vector<I> starts = detail::balanced_start_rows<I>(
        A.host_row_offsets(), A.host_nnz_offsets(), ptr, A.is_uniform(), warps);
    const auto rows = A.host_row_offsets();
    const auto cols = A.host_col_offsets();
    std::int64_t need = 0;
    for (std::int64_t i = 0; i < A.count(); ++i)
      need = std::max(need, rows[i + 1] - rows[i] + cols[i + 1] - cols[i]);
    return BalancedPlan<I>{Array<I>(std::span<const I>(starts), A.space()), need};
  });
}

}  // namespace
}  // namespace batch

// ---- launchers ---------------------------------------------------------------

template <Value T, Index I>
void batch_csr_scalar(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                      const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_csr_scalar");
  const int threads = batch::threads_for(A.max_rows());
  const std::int64_t stage = batch::stage_entries<T>(A.max_cols());
  batch::csr_scalar_kernel<T, I>
      <<<static_cast<unsigned>(A.count()), threads, stage * sizeof(T), ctx.stream>>>(
          batch::csr_view(A), x, alpha, beta, y, stage);
  check_launch("batch csr_scalar_kernel");
}

template <Value T, Index I>
void batch_csr_vector(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                      const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_csr_vector");
  const int threads = batch::threads_for(32 * A.max_rows());
  const std::int64_t stage = batch::stage_entries<T>(A.max_cols());
  batch::csr_vector_kernel<T, I>
      <<<static_cast<unsigned>(A.count()), threads, stage * sizeof(T), ctx.stream>>>(
          batch::csr_view(A), x, alpha, beta, y, stage);
  check_launch("batch csr_vector_kernel");
}

template <Value T, Index I>
void batch_csr_smart(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                     const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_csr_smart");
  const int threads = batch::smart_geometry(A).threads;
  const std::int64_t stage = batch::stage_entries<T>(A.max_cols());
  batch::csr_smart_kernel<T, I>
      <<<static_cast<unsigned>(A.count()), threads, stage * sizeof(T), ctx.stream>>>(
          batch::csr_view(A), x, alpha, beta, y, stage);
  check_launch("batch csr_smart_kernel");
}

template <Value T, Index I>
void batch_csr_balanced(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                        const ExecContext& ctx) {
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), "batch_csr_balanced");
  // Warps per matrix: about four tiles of 32 entries per warp for the
  // largest matrix, between 1 and kMaxThreads / 32.
  const int warps = static_cast<int>(
      std::clamp<std::int64_t>((A.max_nnz() + 127) / 128, 1, batch::kMaxThreads / 32));
  const batch::BalancedPlan<I>& plan = batch::balanced_plan(A, warps);
  // Shared memory holds x and the row accumulators of a matrix.
  const std::int64_t stage = batch::stage_entries<T>(plan.need);
  batch::csr_balanced_kernel<T, I>
      <<<static_cast<unsigned>(A.count()), 32 * warps, stage * sizeof(T), ctx.stream>>>(
          batch::csr_view(A), plan.starts.data(), warps, x, alpha, beta, y, stage);
  check_launch("batch csr_balanced_kernel");
}

#define SPX_INST(T, I)                                                                           \
  template void batch_csr_scalar(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&); \
  template void batch_csr_vector(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&); \
  template void batch_csr_smart(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&);  \
  template void batch_csr_balanced(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
