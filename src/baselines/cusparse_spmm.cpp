// SpMM baselines, for the benchmark and the tests only: cusparseSpMM with
// CUSPARSE_SPMM_CSR_ALG1 (column-major B and C, as cuSPARSE recommends),
// ALG2 and ALG3 (row-major B and C), and cuBLAS GEMM on a dense copy of A.
//
// Handles: the cuSPARSE handle of the SpMV baselines (one per host thread and
// device, cusparse_common.hpp) and one cuBLAS handle per host thread, created
// on first use and bound to the call's stream. The cuBLAS handle lives until
// the process ends (destroying it from a thread_local destructor may run after
// the CUDA runtime has shut down) and belongs to the device current when it
// was created: single-GPU use.
//
// Cached with the matrix (its structure cache; SpmmState and DenseCopy,
// src/baselines/cache_entries.hpp): per (algorithm, shape, operands) the
// cuSPARSE descriptor of A, its work buffer and whether
// cusparseSpMM_preprocess ran; the dense copy of A for GEMM. The dense copy
// holds A's values at the time it was made: after changing A's values in
// place, call A.structure_cache().clear() before using CublasGemm again.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <algorithm>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "baselines/cusparse_common.hpp"
#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/spmm.hpp"

namespace spx::baselines {
namespace {

/// The dense copy of A is refused above this size.
constexpr std::int64_t kDenseBytesLimit = std::int64_t{16} << 30;
/// Cached cuSPARSE set-ups per matrix (oldest dropped first; SpmmState).
constexpr std::size_t kMaxSpmmSetups = 8;

void check_cublas(cublasStatus_t status, std::string_view what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  if (status == CUBLAS_STATUS_NOT_SUPPORTED)
    throw Unsupported(fmt::format("{}: cuBLAS does not support this case ({})", what,
                                  cublasGetStatusString(status)));
  throw CudaError(fmt::format("{} failed: {}", what, cublasGetStatusString(status)));
}

cublasHandle_t cublas_handle(cudaStream_t stream) {
  thread_local cublasHandle_t handle = nullptr;
  if (handle == nullptr) check_cublas(cublasCreate(&handle), "cublasCreate");
  check_cublas(cublasSetStream(handle, stream), "cublasSetStream");
  return handle;
}

cusparseOrder_t order_of(Layout l) {
  return l == Layout::RowMajor ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
}

// ---- cusparseSpMM -----------------------------------------------------------

template <Value T, Index I>
void cusparse_spmm(cusparseSpMMAlg_t alg, T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta,
                   DenseView<T> C, const ExecContext& ctx) {
  constexpr cudaDataType kType = cuda_value_type<T>();
  const SpmmShape shape{B.cols, B.layout, C.layout, B.ld, C.ld};
  cusparseHandle_t handle = cusparse_handle(ctx.stream);

  ConstDnMat b;
  check_cusparse(
      cusparseCreateConstDnMat(b.out(), B.rows, B.cols, B.ld, B.data, kType, order_of(B.layout)),
      "cusparseCreateConstDnMat (B)");
  DnMat c;
  check_cusparse(
      cusparseCreateDnMat(c.out(), C.rows, C.cols, C.ld, C.data, kType, order_of(C.layout)),
      "cusparseCreateDnMat (C)");

  // The cached set-up for these operands, made on first use.
  const SpmmState& state = A.structure_cache().template get<SpmmState>([] { return SpmmState{}; });
  const std::lock_guard lock(state.mutex);
  auto it = std::find_if(state.entries.begin(), state.entries.end(), [&](const SpmmSetup& e) {
    return e.matches(alg, shape, A.values().data(), B.data, C.data);
  });
  if (it == state.entries.end()) {
    // A new set-up, made aside and kept only when complete.
    std::list<SpmmSetup> fresh;
    SpmmSetup& e = fresh.emplace_front(alg, shape, A.values().data(), B.data, C.data);
    check_cusparse(
        cusparseCreateConstCsr(e.descr.out(), A.rows(), A.cols(), A.nnz(), A.row_ptr().data(),
                               A.col_idx().data(), A.values().data(), cusparse_index_type<I>(),
                               cusparse_index_type<I>(), CUSPARSE_INDEX_BASE_ZERO, kType),
        "cusparseCreateConstCsr");
    std::size_t bytes = 0;
    check_cusparse(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, e.descr, b,
                                           &beta, c, kType, alg, &bytes),
                   "cusparseSpMM_bufferSize");
    e.buffer = Array<std::byte>(bytes, Space::Device);
    if (state.entries.size() >= kMaxSpmmSetups) {
      // The oldest set-up's buffer may still be in use by enqueued work.
      cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (cuSPARSE set-up cache)");
      state.entries.pop_back();
    }
    state.entries.splice(state.entries.begin(), fresh);
    it = state.entries.begin();
  } else if (it != state.entries.begin()) {
    state.entries.splice(state.entries.begin(), state.entries, it);
  }
  SpmmSetup& entry = *it;
  // Preprocessing (once per set-up) speeds up ALG1 and ALG3.
  if (!entry.preprocessed && alg != CUSPARSE_SPMM_CSR_ALG2) {
    check_cusparse(cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                           CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, entry.descr, b,
                                           &beta, c, kType, alg, entry.buffer.data()),
                   "cusparseSpMM_preprocess");
    entry.preprocessed = true;
  }
  check_cusparse(
      cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                   &alpha, entry.descr, b, &beta, c, kType, alg, entry.buffer.data()),
      "cusparseSpMM");
}

/// The layouts cuSPARSE documents each algorithm for.
std::string cusparse_layouts(Layout want, const SpmmShape& s) {
  if (s.b_layout == want && s.c_layout == want) return {};
  return fmt::format("this cuSPARSE algorithm is run with {} B and C",
                     want == Layout::RowMajor ? "row-major" : "column-major");
}

// ---- cuBLAS GEMM on the densified matrix --------------------------------------

template <Value T, Index I>
std::string gemm_can_run(const Csr<T, I>& A, const SpmmShape&) {
  const long double bytes = static_cast<long double>(A.rows()) * A.cols() * sizeof(T);
  if (bytes <= static_cast<long double>(kDenseBytesLimit)) return {};
  return fmt::format(
      "the dense copy of A ({}x{}) would take {:.0f} bytes, above the limit of {} bytes", A.rows(),
      A.cols(), static_cast<double>(bytes), kDenseBytesLimit);
}

template <class T>
void gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, std::int64_t m,
          std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b,
          std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  if constexpr (std::same_as<T, float>) {
    check_cublas(cublasSgemm_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc),
                 "cublasSgemm_64");
  } else {
    check_cublas(cublasDgemm_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc),
                 "cublasDgemm_64");
  }
}

template <Value T, Index I>
void cublas_gemm(T alpha, const Csr<T, I>& A, DenseView<const T> B, T beta, DenseView<T> C,
                 const ExecContext& ctx) {
  const std::int64_t m = A.rows(), k = A.cols(), n = B.cols;
  // The dense copy (column-major, ld = m), made once.
  const T* D =
      A.structure_cache()
          .template get<DenseCopy<T>>([&] {
            DenseCopy<T> d{Array<T>(static_cast<std::size_t>(m * k), Space::Device)};
            cuda::csr_to_dense_col_major(A, d.data.data(), ctx);
            cuda::check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (densify)");
            return d;
          })
          .data.data();
  cublasHandle_t h = cublas_handle(ctx.stream);
  const bool b_rows = B.layout == Layout::RowMajor;
  if (C.layout == Layout::ColMajor) {
    // C = D*B; a row-major B is a column-major Bᵀ.
    gemm<T>(h, CUBLAS_OP_N, b_rows ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, alpha, D, m, B.data, B.ld,
            beta, C.data, C.ld);
  } else {
    // Row-major C is a column-major Cᵀ = Bᵀ*Dᵀ.
    gemm<T>(h, b_rows ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_T, n, m, k, alpha, B.data, B.ld, D, m,
            beta, C.data, C.ld);
  }
}

}  // namespace

template <Value T, Index I>
void register_spmm_baselines(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  // cuSPARSE's documented layouts: column-major B and C for ALG1, row-major
  // for ALG2 and ALG3.
  const struct {
    Algorithm algorithm;
    cusparseSpMMAlg_t alg;
    Layout layout;
  } algorithms[] = {{CusparseSpmmAlg1, CUSPARSE_SPMM_CSR_ALG1, Layout::ColMajor},
                    {CusparseSpmmAlg2, CUSPARSE_SPMM_CSR_ALG2, Layout::RowMajor},
                    {CusparseSpmmAlg3, CUSPARSE_SPMM_CSR_ALG3, Layout::RowMajor}};
  for (const auto& a : algorithms)
    reg.template add_spmm<CsrM>(
        cuda_baseline(Op::Spmm, Format::Csr, a.algorithm, true),
        [layout = a.layout](const CsrM&, const SpmmShape& s) {
          return cusparse_layouts(layout, s);
        },
        [alg = a.alg](T alpha, const CsrM& A, DenseView<const T> B, T beta, DenseView<T> C,
                      const ExecContext& ctx) { cusparse_spmm(alg, alpha, A, B, beta, C, ctx); });
  // cuBLAS documents bitwise reproducible results for one toolkit version
  // and GPU model (one stream per handle, as here).
  reg.template add_spmm<CsrM>(cuda_baseline(Op::Spmm, Format::Csr, CublasGemm, true),
                              gemm_can_run<T, I>, cublas_gemm<T, I>);
}

#define SPX_INST(T, I) template void register_spmm_baselines(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines
