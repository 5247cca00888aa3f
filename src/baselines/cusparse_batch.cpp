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
// The cuSPARSE handle is the SpMV baselines' (one per host thread and device,
// cusparse_common.hpp), bound to each product's stream. The cached entries
// (LoopPlan, BatchSpmmCheck, BatchSpmmPlan) are listed in
// src/baselines/cache_entries.hpp.
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "baselines/cusparse_common.hpp"
#include "core/instantiate.hpp"
#include "cuda/batch_kernels.hpp"
#include "cuda/check.hpp"
#include "cuda/register.hpp"

namespace spx::baselines {
namespace {

inline constexpr std::int64_t kMaxSpmmBatch = 65535;

// ---- a loop of SpMV calls ----------------------------------------------------

template <class T, class I>
const LoopPlan<T>& loop_plan(const BatchCsr<T, I>& A, cusparseHandle_t handle) {
  return A.structure_cache().template get<LoopPlan<T>>([&] {
    LoopPlan<T> s;
    const std::int64_t count = A.count();
    const auto rows = A.host_row_offsets();
    const auto cols = A.host_col_offsets();
    const auto vals = A.host_value_offsets();
    s.mats.resize(static_cast<std::size_t>(count));
    s.xs.resize(static_cast<std::size_t>(count));
    s.ys.resize(static_cast<std::size_t>(count));
    s.scratch = Array<T>(
        static_cast<std::size_t>(std::max<std::int64_t>(1, std::max(A.max_rows(), A.max_cols()))),
        Space::Device);
    T* scratch = s.scratch.data();
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
      check_cusparse(cusparseCreateCsr(s.mats[k].out(), m, n, nnz, ptr, col, val,
                                       cusparse_index_type<I>(), cusparse_index_type<I>(),
                                       CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
                     "cusparseCreateCsr");
      check_cusparse(cusparseCreateDnVec(s.xs[k].out(), n, scratch, cuda_value_type<T>()),
                     "cusparseCreateDnVec(x)");
      check_cusparse(cusparseCreateDnVec(s.ys[k].out(), m, scratch, cuda_value_type<T>()),
                     "cusparseCreateDnVec(y)");
      std::size_t bytes = 0;
      check_cusparse(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                             s.mats[k], s.xs[k], &zero, s.ys[k],
                                             cuda_value_type<T>(), CUSPARSE_SPMV_CSR_ALG1, &bytes),
                     "cusparseSpMV_bufferSize");
      most = std::max(most, bytes);
    }
    s.buffer = Array<unsigned char>(std::max<std::size_t>(most, 1), Space::Device);
    return s;
  });
}

template <Value T, Index I>
void cusparse_loop(T alpha, const BatchCsr<T, I>& A, const T* x, T beta, T* y,
                   const ExecContext& ctx) {
  cusparseHandle_t h = cusparse_handle(ctx.stream);
  const LoopPlan<T>& s = loop_plan(A, h);
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
    check_cusparse(cusparseSpMatSetValues(s.mats[k], values + vals[i]), "cusparseSpMatSetValues");
    check_cusparse(cusparseDnVecSetValues(s.xs[k], const_cast<T*>(x) + cols[i]),
                   "cusparseDnVecSetValues(x)");
    check_cusparse(cusparseDnVecSetValues(s.ys[k], y + rows[i]), "cusparseDnVecSetValues(y)");
    check_cusparse(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.mats[k], s.xs[k],
                                &beta, s.ys[k], cuda_value_type<T>(), CUSPARSE_SPMV_CSR_ALG1,
                                const_cast<unsigned char*>(s.buffer.data())),
                   "cusparseSpMV");
  }
}

// ---- strided-batch SpMM with one column -------------------------------------

template <class T, class I>
std::string spmm_qualifies(const BatchCsr<T, I>& A) {
  return A.structure_cache()
      .template get<BatchSpmmCheck>([&] {
        if (A.count() == 0) return BatchSpmmCheck{};
        const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
        for (std::int64_t i = 1; i < A.count(); ++i)
          if (A.rows(i) != m || A.cols(i) != n || A.nnz(i) != nnz)
            return BatchSpmmCheck{
                fmt::format("cuSPARSE strided batches need one shape and nonzero "
                            "count: matrix {} is {}x{} with {} nonzeros, matrix 0 "
                            "is {}x{} with {}",
                            i, A.rows(i), A.cols(i), A.nnz(i), m, n, nnz)};
        return BatchSpmmCheck{};
      })
      .reason;
}

template <class T, class I>
const BatchSpmmPlan<T, I>& spmm_plan(const BatchCsr<T, I>& A, cusparseHandle_t handle,
                                     cusparseSpMMAlg_t alg) {
  return A.structure_cache().template get<BatchSpmmPlan<T, I>>(alg, [&] {
    BatchSpmmPlan<T, I> s;
    const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
    // Row pointers: one per matrix (stride m+1), or the shared one
    // (stride 0). Column indices: per matrix, copied for uniform batches.
    I* ptr = const_cast<I*>(A.row_ptr().data());
    const std::int64_t ptr_stride = A.is_uniform() ? 0 : m + 1;
    I* col = const_cast<I*>(A.col_idx().data());
    if (A.is_uniform()) {
      s.col_copies = Array<I>(static_cast<std::size_t>(A.count() * nnz), Space::Device);
      for (std::int64_t i = 0; i < A.count(); ++i)
        spx::detail::copy_bytes(s.col_copies.data() + i * nnz, Space::Device, A.col_idx().data(),
                                Space::Device, static_cast<std::size_t>(nnz) * sizeof(I));
      col = s.col_copies.data();
    }
    s.scratch = Array<T>(static_cast<std::size_t>(std::max(m, n)), Space::Device);
    T* val = const_cast<T*>(A.values().data());
    const T one = 1, zero = 0;
    std::size_t most = 0;
    for (std::int64_t first = 0; first < A.count(); first += kMaxSpmmBatch) {
      SpmmChunk& d = s.chunks.emplace_back();
      d.first = first;
      d.count = std::min(kMaxSpmmBatch, A.count() - first);
      const int batches = static_cast<int>(d.count);
      check_cusparse(
          cusparseCreateCsr(d.a.out(), m, n, nnz, ptr + first * ptr_stride, col + first * nnz,
                            val + first * nnz, cusparse_index_type<I>(), cusparse_index_type<I>(),
                            CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
          "cusparseCreateCsr");
      check_cusparse(cusparseCsrSetStridedBatch(d.a, batches, ptr_stride, nnz),
                     "cusparseCsrSetStridedBatch");
      check_cusparse(cusparseCreateDnMat(d.b.out(), n, 1, n, s.scratch.data(), cuda_value_type<T>(),
                                         CUSPARSE_ORDER_COL),
                     "cusparseCreateDnMat(x)");
      check_cusparse(cusparseDnMatSetStridedBatch(d.b, batches, n),
                     "cusparseDnMatSetStridedBatch(x)");
      check_cusparse(cusparseCreateDnMat(d.c.out(), m, 1, m, s.scratch.data(), cuda_value_type<T>(),
                                         CUSPARSE_ORDER_COL),
                     "cusparseCreateDnMat(y)");
      check_cusparse(cusparseDnMatSetStridedBatch(d.c, batches, m),
                     "cusparseDnMatSetStridedBatch(y)");
      std::size_t bytes = 0;
      check_cusparse(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             CUSPARSE_OPERATION_NON_TRANSPOSE, &one, d.a, d.b,
                                             &zero, d.c, cuda_value_type<T>(), alg, &bytes),
                     "cusparseSpMM_bufferSize");
      most = std::max(most, bytes);
    }
    s.buffer = Array<unsigned char>(std::max<std::size_t>(most, 1), Space::Device);
    return s;
  });
}

template <Value T, Index I>
void cusparse_spmm(cusparseSpMMAlg_t alg, T alpha, const BatchCsr<T, I>& A, const T* x, T beta,
                   T* y, const ExecContext& ctx) {
  if (A.count() == 0) return;
  cusparseHandle_t h = cusparse_handle(ctx.stream);
  const BatchSpmmPlan<T, I>& s = spmm_plan(A, h, alg);
  const std::int64_t m = A.rows(0), n = A.cols(0), nnz = A.nnz(0);
  T* val = const_cast<T*>(A.values().data());
  for (const auto& c : s.chunks) {
    check_cusparse(cusparseSpMatSetValues(c.a, val + c.first * nnz), "cusparseSpMatSetValues");
    check_cusparse(cusparseDnMatSetValues(c.b, const_cast<T*>(x) + c.first * n),
                   "cusparseDnMatSetValues(x)");
    check_cusparse(cusparseDnMatSetValues(c.c, y + c.first * m), "cusparseDnMatSetValues(y)");
    check_cusparse(
        cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                     c.a, c.b, &beta, c.c, cuda_value_type<T>(), alg,
                     const_cast<unsigned char*>(s.buffer.data())),
        "cusparseSpMM");
  }
}

}  // namespace

template <Value T, Index I>
void register_cusparse_batch(Registry<T, I>& reg) {
  using Csr = BatchCsr<T, I>;
  reg.template add_batch_spmv<Csr>(cuda_baseline(Op::BatchSpmv, Format::Csr, CusparseLoop, true),
                                   always<Csr>, cusparse_loop<T, I>);
  for (const auto& [algorithm, alg] : {std::pair{CusparseSpmmAlg1, CUSPARSE_SPMM_CSR_ALG1},
                                       std::pair{CusparseSpmmAlg2, CUSPARSE_SPMM_CSR_ALG2}}) {
    reg.template add_batch_spmv<Csr>(
        cuda_baseline(Op::BatchSpmv, Format::Csr, algorithm, true), spmm_qualifies<T, I>,
        [alg = alg](T alpha, const Csr& A, const T* x, T beta, T* y, const ExecContext& ctx) {
          cusparse_spmm(alg, alpha, A, x, beta, y, ctx);
        });
  }
}

#define SPX_INST(T, I) template void register_cusparse_batch(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines
