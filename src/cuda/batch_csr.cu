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
    store_axpby(y, r, alpha, sum, beta);
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
    sum = across_groups_sum(sum);
    if (lane == 0) store_axpby(y, r, alpha, sum, beta);
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
    sum = group_sum(sum, vlen);
    if (r < m && lane == 0) store_axpby(y, r, alpha, sum, beta);
  }
}

/// Scalar, vector and smart: the kernel of the three, which differ only in
/// how the block's threads take its matrix's rows (scalar_rows, vector_rows,
/// smart_rows with this matrix's vector length, from its own mean row
/// length).
template <Algorithm Kind, class T, class I>
__global__ void __launch_bounds__(kMaxThreads)
    csr_rows_kernel(CsrView<T, I> A, const T* __restrict__ x, T alpha, T beta, T* __restrict__ y,
                    std::int64_t stage) {
  const std::int64_t b = blockIdx.x;
  const Slice s = slice_of(A.row_off, A.col_off, A.val_off, b);
  if (s.m == 0) return;
  const int vlen = Kind == Algorithm::Adaptive ? detail::vector_length(s.slots, s.m) : 1;
  const I* ptr = A.ptr(b, s.row0);
  const I* col = A.cols(s.val0);
  const T* val = A.values + s.val0;
  with_x(x, s, stage, [&](auto xb) {
    if constexpr (Kind == Algorithm::Scalar) {
      scalar_rows(ptr, col, val, xb, s.m, alpha, beta, y + s.row0);
    } else if constexpr (Kind == Algorithm::Vector) {
      vector_rows(ptr, col, val, xb, s.m, alpha, beta, y + s.row0);
    } else {
      smart_rows(ptr, col, val, xb, s.m, vlen, alpha, beta, y + s.row0);
    }
  });
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
    const T sum = run_sum_at_head(valid ? r : std::int64_t{-1}, v, &head);
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
      store_axpby(yb, r, alpha, acc[r], beta);
  } else {
    // Phase 1: y = beta*y (rows without entries keep it).
    for (std::int64_t r = threadIdx.x; r < s.m; r += blockDim.x)
      store_scaled(yb, r, beta);
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

template <Algorithm Kind, Value T, Index I>
void batch_csr_rows(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                    const ExecContext& ctx) {
  static_assert(Kind == Algorithm::Scalar || Kind == Algorithm::Vector ||
                Kind == Algorithm::Adaptive);
  constexpr bool kScalar = Kind == Algorithm::Scalar, kVector = Kind == Algorithm::Vector;
  constexpr const char* kName = kScalar   ? "batch_csr_scalar"
                                : kVector ? "batch_csr_vector"
                                          : "batch_csr_smart";
  constexpr const char* kKernel = kScalar   ? "batch csr_scalar_kernel"
                                  : kVector ? "batch csr_vector_kernel"
                                            : "batch csr_smart_kernel";
  if (A.count() == 0) return;  // nothing to launch (the dispatcher returns before this)
  batch::check_grid(A.count(), kName);
  int threads = 0;
  if constexpr (kScalar) {
    threads = batch::threads_for(A.max_rows());  // a thread per row
  } else if constexpr (kVector) {
    threads = batch::threads_for(32 * A.max_rows());  // a warp per row
  } else {
    threads = batch::smart_geometry(A).threads;
  }
  const std::int64_t stage = batch::stage_entries<T>(A.max_cols());
  batch::launch_blocks<T>(batch::csr_rows_kernel<Kind, T, I>, A.count(), threads, stage, ctx.stream,
                          kKernel, batch::csr_view(A), x, alpha, beta, y);
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
  batch::launch_blocks<T>(batch::csr_balanced_kernel<T, I>, A.count(), 32 * warps, stage,
                          ctx.stream, "batch csr_balanced_kernel", batch::csr_view(A),
                          plan.starts.data(), warps, x, alpha, beta, y);
}

#define SPX_INST(T, I)                                                                         \
  template void batch_csr_rows<Algorithm::Scalar>(T, const BatchCsr<T, I>&, const T*, T, T*,   \
                                                  const ExecContext&);                         \
  template void batch_csr_rows<Algorithm::Vector>(T, const BatchCsr<T, I>&, const T*, T, T*,   \
                                                  const ExecContext&);                         \
  template void batch_csr_rows<Algorithm::Adaptive>(T, const BatchCsr<T, I>&, const T*, T, T*, \
                                                    const ExecContext&);                       \
  template void batch_csr_balanced(T, const BatchCsr<T, I>&, const T*, T, T*, const ExecContext&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
