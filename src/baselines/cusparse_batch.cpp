// cuSPARSE baselines for batched SpMV (benchmarks and tests only):
//
//  - CusparseLoop: what an application does without a batched routine, one
//    cusparseSpMV call per matrix (CUSPARSE_SPMV_CSR_ALG1). The descriptors
//    (one sparse matrix and two dense vectors per matrix) and the work buffer
//    are created once and kept in the batch's structure cache; each product
//    re-points them at the current arrays and vectors, then loops.
//  - CusparseSpmmAlg1/Alg2: cusparseSpMM with strided batches
//    (cusparseCsrSetStridedBatch, cusparseDnMatSetStridedBatch) and one
//    column, which cuSPARSE offers when every matrix has the same shape and
//    nonzero count. A uniform batch shares one row pointer (stride 0), but
//    cuSPARSE strides column indices together with values, so the baseline
//    keeps a copy of the column indices per matrix (cached). Batches are cut
//    into chunks of at most 65535 matrices (the grid-dimension limit batched
//    cuSPARSE kernels are known to have).
//
// The cuSPARSE handle is one per device, created on first use and never
// destroyed (destroying it at static destruction, after the CUDA runtime may
// be gone, is unsafe); calls through it are serialized because its stream is
// set per call.
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "cuda/register.hpp"
#include "core/instantiate.hpp"
#include "cuda/batch_kernels.hpp"
#include "cuda/check.hpp"

namespace spx::cuda {
namespace {

void check_sparse(cusparseStatus_t status, std::string_view what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw CudaError(fmt::format("{} failed: {} (cuSPARSE status {})", what,
                                cusparseGetErrorString(status), static_cast<int>(status)));
}

/// The current device's handle, bound to `stream`, held under a lock for the
/// duration of one product.
struct LockedHandle {
  cusparseHandle_t handle;
  std::unique_lock<std::mutex> lock;
};

LockedHandle handle_for(cudaStream_t stream) {
  static std::mutex mutex;
  static std::map<int, cusparseHandle_t> handles;
  std::unique_lock lock(mutex);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cusparseHandle_t& h = handles[device];
  if (h == nullptr) check_sparse(cusparseCreate(&h), "cusparseCreate");
  check_sparse(cusparseSetStream(h, stream), "cusparseSetStream");
  return {h, std::move(lock)};
}

template <class T>
constexpr cudaDataType value_type() {
  return std::same_as<T, float> ? CUDA_R_32F : CUDA_R_64F;
}
template <class I>
constexpr cusparseIndexType_t index_type() {
  return sizeof(I) == 4 ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

inline constexpr std::uint64_t kKeyLoop = 0x5B050000;
inline constexpr std::uint64_t kKeySpmm = 0x5B060000;  // | algorithm
inline constexpr std::int64_t kMaxSpmmBatch = 65535;

// ---- a loop of SpMV calls ----------------------------------------------------

/// Descriptors of every matrix with entries (nullptr for the others), and the
/// work buffer. Destroys the descriptors with the batch.
template <class T>
struct LoopState {
  std::vector<cusparseSpMatDescr_t> mats;
  std::vector<cusparseDnVecDescr_t> xs, ys;
  Array<T> scratch;  // placeholder vectors for the descriptors until the first product
  Array<unsigned char> buffer;

  LoopState() = default;
  LoopState(const LoopState&) = delete;
  LoopState& operator=(const LoopState&) = delete;
  ~LoopState() {
    for (auto d : mats)
      if (d) cusparseDestroySpMat(d);
    for (auto d : xs)
      if (d) cusparseDestroyDnVec(d);
    for (auto d : ys)
      if (d) cusparseDestroyDnVec(d);
  }
};
template <class T>
struct LoopPlan {
  std::unique_ptr<LoopState<T>> state;
};

template <class T, class I>
const LoopPlan<T>& loop_plan(const BatchCsr<T, I>& A, cusparseHandle_t handle) {
  return A.structure_cache().template get<LoopPlan<T>>(kKeyLoop, [&] {
    auto s = std::make_unique<LoopState<T>>();
    const std::int64_t count = A.count();
    const auto rows = A.host_row_offsets();
    const auto cols = A.host_col_offsets();
    const auto vals = A.host_value_offsets();
    s->mats.assign(static_cast<std::size_t>(count), nullptr);
    s->xs.assign(static_cast<std::size_t>(count), nullptr);
    s->ys.assign(static_cast<std::size_t>(count), nullptr);
    s->scratch = Array<T>(
        static_cast<std::size_t>(std::max<std::int64_t>(1, std::max(A.max_rows(), A.max_cols()))),
        Space::Device);
    T* scratch = s->scratch.data();
    std::size_t most = 0;
    const T one = 1, zero = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t m = rows[i + 1] - rows[i], n = cols[i + 1] - cols[i];
      const std::int64_t nnz = vals[i + 1] - vals[i];
      if (m == 0 || nnz == 0) continue;  // no call: nothing, or y = beta*y
      const auto k = static_cast<std::size_t>(i);
      I* ptr = const_cast<I*>(A.row_ptr().data()) + (A.is_uniform() ? 0 : rows[i] + i);
      I* col = const_cast<I*>(A.col_idx().data()) + (A.is_uniform() ? 0 : vals[i]);
      T* val = const_cast<T*>(A.values().data()) + vals[i];
      check_sparse(cusparseCreateCsr(&s->mats[k], m, n, nnz, ptr, col, val, index_type<I>(),
                                     index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, value_type<T>()),
                   "cusparseCreateCsr");
      check_sparse(cusparseCreateDnVec(&s->xs[k], n, scratch, value_type<T>()),
                   "cusparseCreateDnVec(x)");
      check_sparse(cusparseCreateDnVec(&s->ys[k], m, scratch, value_type<T>()),
                   "cusparseCreateDnVec(y)");
      std::size_t bytes = 0;
      check_sparse(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                           s->mats[k], s->xs[k], &zero, s->ys[k], value_type<T>(),
                                           CUSPARSE_SPMV_CSR_ALG1, &bytes),
                   "cusparseSpMV_bufferSize");
      most = std::max(most, bytes);
    }
    s->buffer = Array<unsigned char>(std::max<std::size_t>(most, 1), Space::Device);
    return LoopPlan<T>{std::move(s)};
  });
}

template <Value T, Index I>
void cusparse_loop(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                   const ExecContext& ctx) {
  LockedHandle h = handle_for(ctx.stream);
  const LoopState<T>& s = *loop_plan(A, h.handle).state;
  const auto rows = A.host_row_offsets();
  const auto cols = A.host_col_offsets();
  const auto vals = A.host_value_offsets();
  T* values = const_cast<T*>(A.values().data());
  for (std::int64_t i = 0; i < A.count(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::int64_t m = rows[i + 1] - rows[i];
    if (m == 0) continue;
    if (s.mats[k] == nullptr) {  // no entries: y_i = beta*y_i
      detail::cuda_scale(beta, y + rows[i], m, ctx);
      continue;
    }
    check_sparse(cusparseSpMatSetValues(s.mats[k], values + vals[i]), "cusparseSpMatSetValues");
    check_sparse(cusparseDnVecSetValues(s.xs[k], const_cast<T*>(x) + cols[i]),
                 "cusparseDnVecSetValues(x)");
    check_sparse(cusparseDnVecSetValues(s.ys[k], y + rows[i]), "cusparseDnVecSetValues(y)");
    check_sparse(cusparseSpMV(h.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.mats[k],
                              s.xs[k], &beta, s.ys[k], value_type<T>(), CUSPARSE_SPMV_CSR_ALG1,
                              const_cast<unsigned char*>(s.buffer.data())),
                 "cusparseSpMV");
  }
}

// ---- strided-batch SpMM with one column -------------------------------------

/// Empty when every matrix has matrix 0's shape and nonzero count, else the
/// reason (computed once per batch: can_run is asked on every product).
struct SpmmCheck {
  std::string reason;
};
inline constexpr std::uint64_t kKeySpmmCheck = 0x5B070000;

template <class T, class I>
std::string spmm_qualifies(const BatchCsr<T, I>& A) {
  return A.structure_cache()
      .template get<SpmmCheck>(kKeySpmmCheck,
                               [&] {
                                 if (A.count() == 0) return SpmmCheck{};
                                 const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
                                 for (std::int64_t i = 1; i < A.count(); ++i)
                                   if (A.rows(i) != m || A.cols(i) != n || A.nnz(i) != nnz)
                                     return SpmmCheck{fmt::format(
                                         "cuSPARSE strided batches need one shape and nonzero "
                                         "count: matrix {} is {}x{} with {} nonzeros, matrix 0 "
                                         "is {}x{} with {}",
                                         i, A.rows(i), A.cols(i), A.nnz(i), m, n, nnz)};
                                 return SpmmCheck{};
                               })
      .reason;
}

/// One cuSPARSE batched call per chunk of at most kMaxSpmmBatch matrices.
template <class T>
struct SpmmChunk {
  std::int64_t first = 0, count = 0;
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnMatDescr_t b = nullptr, c = nullptr;
};
template <class T, class I>
struct SpmmState {
  std::vector<SpmmChunk<T>> chunks;
  Array<I> col_copies;  // uniform batches: col_idx once per matrix
  Array<T> scratch;
  Array<unsigned char> buffer;

  SpmmState() = default;
  SpmmState(const SpmmState&) = delete;
  SpmmState& operator=(const SpmmState&) = delete;
  ~SpmmState() {
    for (auto& c : chunks) {
      if (c.a) cusparseDestroySpMat(c.a);
      if (c.b) cusparseDestroyDnMat(c.b);
      if (c.c) cusparseDestroyDnMat(c.c);
    }
  }
};
template <class T, class I>
struct SpmmPlan {
  std::unique_ptr<SpmmState<T, I>> state;
};

template <class T, class I>
const SpmmPlan<T, I>& spmm_plan(const BatchCsr<T, I>& A, cusparseHandle_t handle,
                                cusparseSpMMAlg_t alg) {
  return A.structure_cache().template get<SpmmPlan<T, I>>(
      kKeySpmm | static_cast<std::uint64_t>(alg), [&] {
        auto s = std::make_unique<SpmmState<T, I>>();
        const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
        // Row pointers: one per matrix (stride m+1), or the shared one
        // (stride 0). Column indices: per matrix, copied for uniform batches.
        I* ptr = const_cast<I*>(A.row_ptr().data());
        const std::int64_t ptr_stride = A.is_uniform() ? 0 : m + 1;
        I* col = const_cast<I*>(A.col_idx().data());
        if (A.is_uniform()) {
          s->col_copies = Array<I>(static_cast<std::size_t>(A.count() * nnz), Space::Device);
          for (std::int64_t i = 0; i < A.count(); ++i)
            spx::detail::copy_bytes(s->col_copies.data() + i * nnz, Space::Device,
                                    A.col_idx().data(), Space::Device,
                                    static_cast<std::size_t>(nnz) * sizeof(I));
          col = s->col_copies.data();
        }
        s->scratch = Array<T>(static_cast<std::size_t>(std::max(m, n)), Space::Device);
        T* val = const_cast<T*>(A.values().data());
        const T one = 1, zero = 0;
        std::size_t most = 0;
        for (std::int64_t first = 0; first < A.count(); first += kMaxSpmmBatch) {
          SpmmChunk<T> c;
          c.first = first;
          c.count = std::min(kMaxSpmmBatch, A.count() - first);
          const int batches = static_cast<int>(c.count);
          s->chunks.push_back(c);
          SpmmChunk<T>& d = s->chunks.back();
          check_sparse(
              cusparseCreateCsr(&d.a, m, n, nnz, ptr + first * ptr_stride, col + first * nnz,
                                val + first * nnz, index_type<I>(), index_type<I>(),
                                CUSPARSE_INDEX_BASE_ZERO, value_type<T>()),
              "cusparseCreateCsr");
          check_sparse(cusparseCsrSetStridedBatch(d.a, batches, ptr_stride, nnz),
                       "cusparseCsrSetStridedBatch");
          check_sparse(cusparseCreateDnMat(&d.b, n, 1, n, s->scratch.data(), value_type<T>(),
                                           CUSPARSE_ORDER_COL),
                       "cusparseCreateDnMat(x)");
          check_sparse(cusparseDnMatSetStridedBatch(d.b, batches, n),
                       "cusparseDnMatSetStridedBatch(x)");
          check_sparse(cusparseCreateDnMat(&d.c, m, 1, m, s->scratch.data(), value_type<T>(),
                                           CUSPARSE_ORDER_COL),
                       "cusparseCreateDnMat(y)");
          check_sparse(cusparseDnMatSetStridedBatch(d.c, batches, m),
                       "cusparseDnMatSetStridedBatch(y)");
          std::size_t bytes = 0;
          check_sparse(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.a, d.b,
                                               &zero, d.c, value_type<T>(), alg, &bytes),
                       "cusparseSpMM_bufferSize");
          most = std::max(most, bytes);
        }
        s->buffer = Array<unsigned char>(std::max<std::size_t>(most, 1), Space::Device);
        return SpmmPlan<T, I>{std::move(s)};
      });
}

template <Value T, Index I>
void cusparse_spmm(cusparseSpMMAlg_t alg, T alpha, const BatchCsr<T, I>& A, const T* x, T beta,
                   T* y, const ExecContext& ctx) {
  if (A.count() == 0) return;
  LockedHandle h = handle_for(ctx.stream);
  const SpmmState<T, I>& s = *spmm_plan(A, h.handle, alg).state;
  const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
  T* val = const_cast<T*>(A.values().data());
  for (const auto& c : s.chunks) {
    check_sparse(cusparseSpMatSetValues(c.a, val + c.first * nnz), "cusparseSpMatSetValues");
    check_sparse(cusparseDnMatSetValues(c.b, const_cast<T*>(x) + c.first * n),
                 "cusparseDnMatSetValues(x)");
    check_sparse(cusparseDnMatSetValues(c.c, y + c.first * m), "cusparseDnMatSetValues(y)");
    check_sparse(cusparseSpMM(h.handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, c.a, c.b, &beta, c.c,
                              value_type<T>(), alg, const_cast<unsigned char*>(s.buffer.data())),
                 "cusparseSpMM");
  }
}

}  // namespace

template <Value T, Index I>
void register_cusparse_batch(Registry<T, I>& reg) {
  using Csr = BatchCsr<T, I>;
  const auto baseline = [](Algorithm a) {
    return KernelInfo{Op::BatchSpmv, Format::Csr, a, Backend::Cuda, true, true};
  };
  reg.template add_batch_spmv<Csr>(baseline(baselines::CusparseLoop), always<Csr>,
                                   cusparse_loop<T, I>);
  reg.template add_batch_spmv<Csr>(
      baseline(baselines::CusparseSpmmAlg1), spmm_qualifies<T, I>,
      [](T alpha, const Csr& A, const T* x, T beta, T* y, const ExecContext& ctx) {
        cusparse_spmm(CUSPARSE_SPMM_CSR_ALG1, alpha, A, x, beta, y, ctx);
      });
  reg.template add_batch_spmv<Csr>(
      baseline(baselines::CusparseSpmmAlg2), spmm_qualifies<T, I>,
      [](T alpha, const Csr& A, const T* x, T beta, T* y, const ExecContext& ctx) {
        cusparse_spmm(CUSPARSE_SPMM_CSR_ALG2, alpha, A, x, beta, y, ctx);
      });
}

#define SPX_INST(T, I) template void register_cusparse_batch(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
