// cuSPARSE generic SpMV (cusparseSpMV) as registry baselines.
//
// Handles: one per host thread and device, created on first use, bound to the
// stream of each call (cusparseSetStream), destroyed when the thread ends.
// Descriptors and work buffer: created on the first call for a (matrix,
// algorithm) and kept in the matrix's structure cache, so repeated calls (the
// benchmark) allocate nothing; CSR algorithms also run cusparseSpMV_preprocess
// once. The cached work buffer is shared by every call on that matrix:
// concurrent calls on one matrix from several streams are not supported for
// the baselines (SpX's own kernels allow them).
#include "baselines/baselines.hpp"
#include "baselines/cusparse.hpp"
#include "baselines/cusparse_common.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "cuda/kernels.hpp"
#include "spx/core/array.hpp"

namespace spx::baselines {
namespace {}  // namespace

void check_cusparse(cusparseStatus_t status, std::string_view call, std::string_view what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw CudaError(fmt::format("{}{}{}{} failed: {} (cuSPARSE status {})", call,
                                what.empty() ? "" : " (", what, what.empty() ? "" : ")",
                                cusparseGetErrorString(status), static_cast<int>(status)));
}

cusparseHandle_t cusparse_handle() {
  struct Handles {
    std::vector<cusparseHandle_t> by_device;
    Handles() = default;
    Handles(const Handles&) = delete;
    Handles& operator=(const Handles&) = delete;
    ~Handles() {
      for (cusparseHandle_t h : by_device)
        if (h != nullptr) cusparseDestroy(h);
    }
  };
  thread_local Handles handles;
  int device = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  const auto d = static_cast<std::size_t>(device);
  if (handles.by_device.size() <= d) handles.by_device.resize(d + 1, nullptr);
  cusparseHandle_t& h = handles.by_device[d];
  if (h == nullptr) check_cusparse(cusparseCreate(&h), "cusparseCreate");
  return h;
}

namespace {

/// Dense-vector descriptors for one call (host objects, cheap to create).
struct VecX {
  cusparseConstDnVecDescr_t d = nullptr;
  VecX() = default;
  VecX(const VecX&) = delete;
  VecX& operator=(const VecX&) = delete;
  ~VecX() {
    if (d != nullptr) cusparseDestroyDnVec(d);
  }
};
struct VecY {
  cusparseDnVecDescr_t d = nullptr;
  VecY() = default;
  VecY(const VecY&) = delete;
  VecY& operator=(const VecY&) = delete;
  ~VecY() {
    if (d != nullptr) cusparseDestroyDnVec(d);
  }
};

/// The matrix descriptor and work buffer of one (matrix, algorithm).
struct Plan {
  cusparseConstSpMatDescr_t mat = nullptr;
  mutable Array<std::byte> buffer;  ///< device; cuSPARSE writes it during calls

  Plan() = default;
  Plan(Plan&& o) noexcept : mat(std::exchange(o.mat, nullptr)), buffer(std::move(o.buffer)) {}
  Plan& operator=(Plan&&) = delete;
  ~Plan() {
    if (mat != nullptr) cusparseDestroySpMat(mat);
  }
};

/// y = alpha*A*x + beta*y with cuSPARSE algorithm `alg`; `describe(mat)`
/// creates the matrix descriptor on the first call.
template <Value T, class M, class Describe>
void run(const M& A, cusparseSpMVAlg_t alg, std::string_view name, bool preprocess, T alpha,
         const T* x, T beta, T* y, const ExecContext& ctx, Describe describe) {
  constexpr cudaDataType type = cuda_value_type<T>();
  cusparseHandle_t h = cusparse_handle();
  check_cusparse(cusparseSetStream(h, ctx.stream), "cusparseSetStream");
  VecX vx;
  check_cusparse(cusparseCreateConstDnVec(&vx.d, A.cols(), x, type), "cusparseCreateConstDnVec(x)");
  VecY vy;
  check_cusparse(cusparseCreateDnVec(&vy.d, A.rows(), y, type), "cusparseCreateDnVec(y)");

  const Plan& plan = A.structure_cache().template get<Plan>(
      cuda::cache_key(cuda::CacheTag::Cusparse, static_cast<std::uint64_t>(alg)), [&] {
        Plan p;
        describe(p.mat);
        std::size_t bytes = 0;
        check_cusparse(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.mat,
                                               vx.d, &beta, vy.d, type, alg, &bytes),
                       "cusparseSpMV_bufferSize", name);
        p.buffer = Array<std::byte>(bytes, Space::Device);
        if (preprocess) {
          // Optional in cuSPARSE: an algorithm without a preprocessing step
          // may answer NOT_SUPPORTED, and then runs without one.
          const cusparseStatus_t status =
              cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.mat, vx.d,
                                      &beta, vy.d, type, alg, p.buffer.data());
          if (status != CUSPARSE_STATUS_NOT_SUPPORTED)
            check_cusparse(status, "cusparseSpMV_preprocess", name);
          // Later calls may come on other streams: finish before sharing.
          cuda::check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize(cuSPARSE plan)");
        }
        return p;
      });
  check_cusparse(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, plan.mat, vx.d, &beta,
                              vy.d, type, alg, plan.buffer.data()),
                 "cusparseSpMV", name);
}

template <Value T, Index I>
void spmv_csr(cusparseSpMVAlg_t alg, std::string_view name, T alpha, const Csr<T, I>& A, const T* x,
              T beta, T* y, const ExecContext& ctx) {
  run(A, alg, name, true, alpha, x, beta, y, ctx, [&](cusparseConstSpMatDescr_t& mat) {
    check_cusparse(cusparseCreateConstCsr(&mat, A.rows(), A.cols(), A.nnz(), A.row_ptr().data(),
                                          A.col_idx().data(), A.values().data(),
                                          cusparse_index_type<I>(), cusparse_index_type<I>(),
                                          CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
                   "cusparseCreateConstCsr");
  });
}

template <Value T, Index I>
void spmv_coo(cusparseSpMVAlg_t alg, std::string_view name, T alpha, const Coo<T, I>& A, const T* x,
              T beta, T* y, const ExecContext& ctx) {
  run(A, alg, name, false, alpha, x, beta, y, ctx, [&](cusparseConstSpMatDescr_t& mat) {
    check_cusparse(
        cusparseCreateConstCoo(&mat, A.rows(), A.cols(), A.nnz(), A.row_idx().data(),
                               A.col_idx().data(), A.values().data(), cusparse_index_type<I>(),
                               CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
        "cusparseCreateConstCoo");
  });
}

}  // namespace

template <Value T, Index I>
void register_cusparse(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  // cuSPARSE documents ALG2 (CSR and COO) as bitwise reproducible; ALG1 is not.
  const auto info = [](Algorithm a, bool deterministic) {
    return KernelInfo{Op::Spmv, Format::Csr, a, Backend::Cuda, deterministic, true};
  };
  const auto csr = [](cusparseSpMVAlg_t alg, std::string_view name) {
    return [alg, name](T alpha, const CsrM& A, const T* x, T beta, T* y, const ExecContext& ctx) {
      spmv_csr(alg, name, alpha, A, x, beta, y, ctx);
    };
  };
  const auto coo = [](cusparseSpMVAlg_t alg, std::string_view name) {
    return [alg, name](T alpha, const CooM& A, const T* x, T beta, T* y, const ExecContext& ctx) {
      spmv_coo(alg, name, alpha, A, x, beta, y, ctx);
    };
  };
  const auto sorted = [](const CooM& A) -> std::string {
    return A.sorted() ? "" : "cuSPARSE COO SpMV needs entries sorted by row; use sort_coo()";
  };

  reg.template add_spmv<CsrM>(info(baselines::CusparseCsrAlg1, false), always<CsrM>,
                              csr(CUSPARSE_SPMV_CSR_ALG1, "CSR, CUSPARSE_SPMV_CSR_ALG1"));
  reg.template add_spmv<CsrM>(info(baselines::CusparseCsrAlg2, true), always<CsrM>,
                              csr(CUSPARSE_SPMV_CSR_ALG2, "CSR, CUSPARSE_SPMV_CSR_ALG2"));
  reg.template add_spmv<CooM>(info(baselines::CusparseCooAlg1, false), sorted,
                              coo(CUSPARSE_SPMV_COO_ALG1, "COO, CUSPARSE_SPMV_COO_ALG1"));
  reg.template add_spmv<CooM>(info(baselines::CusparseCooAlg2, true), sorted,
                              coo(CUSPARSE_SPMV_COO_ALG2, "COO, CUSPARSE_SPMV_COO_ALG2"));
}

#define SPX_INST(T, I) template void register_cusparse(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines
