// cuSPARSE generic SpMV (cusparseSpMV) as registry baselines.
//
// Handles: one per host thread and device, created on first use, bound to the
// stream of each call (cusparseSetStream), destroyed when the thread ends
// (cusparse_common.cpp). Descriptors and work buffer: created on the first
// call for a (matrix, algorithm) and kept in the matrix's structure cache
// (cusparse_spmv, cusparse_common.hpp), so repeated calls (the benchmark)
// allocate nothing; CSR algorithms also run cusparseSpMV_preprocess once. The
// cached work buffer is shared by every call on that matrix: concurrent calls
// on one matrix from several streams are not supported for the baselines
// (SpX's own kernels allow them).
#include "baselines/cusparse.hpp"
#include "baselines/baselines.hpp"
#include "baselines/cusparse_common.hpp"

#include <cusparse.h>

#include <string>
#include <string_view>

#include "core/instantiate.hpp"

namespace spx::baselines {
namespace {

/// y = alpha*A*x + beta*y for a CSR, COO or CSC A; CSR algorithms also run
/// cusparseSpMV_preprocess once.
template <class M, Value T>
void spmv(cusparseSpMVAlg_t alg, std::string_view name, T alpha, const M& A, const T* x, T beta,
          T* y, const ExecContext& ctx) {
  using I = typename M::index_type;
  constexpr bool kCsr = M::kFormat == Format::Csr;
  cusparse_spmv(
      A, alg, name, kCsr, alpha, x, A.cols(), beta, y, A.rows(), ctx.stream, [&](SpmvPlan<>& p) {
        constexpr cusparseIndexType_t kIndex = cusparse_index_type<I>();
        if constexpr (kCsr) {
          check_cusparse(
              cusparseCreateConstCsr(p.mat.out(), A.rows(), A.cols(), A.nnz(), A.row_ptr().data(),
                                     A.col_idx().data(), A.values().data(), kIndex, kIndex,
                                     CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
              "cusparseCreateConstCsr", name);
        } else if constexpr (M::kFormat == Format::Csc) {
          check_cusparse(
              cusparseCreateConstCsc(p.mat.out(), A.rows(), A.cols(), A.nnz(), A.col_ptr().data(),
                                     A.row_idx().data(), A.values().data(), kIndex, kIndex,
                                     CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
              "cusparseCreateConstCsc", name);
        } else {
          check_cusparse(
              cusparseCreateConstCoo(p.mat.out(), A.rows(), A.cols(), A.nnz(), A.row_idx().data(),
                                     A.col_idx().data(), A.values().data(), kIndex,
                                     CUSPARSE_INDEX_BASE_ZERO, cuda_value_type<T>()),
              "cusparseCreateConstCoo", name);
        }
      });
}

}  // namespace

template <Value T, Index I>
void register_cusparse(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  using CscM = Csc<T, I>;
  const auto run = [](cusparseSpMVAlg_t alg, std::string_view name) {
    return [alg, name](T alpha, const auto& A, const T* x, T beta, T* y, const ExecContext& ctx) {
      spmv(alg, name, alpha, A, x, beta, y, ctx);
    };
  };
  const auto sorted = [](const CooM& A) -> std::string {
    return A.sorted() ? "" : "cuSPARSE COO SpMV needs entries sorted by row; use sort_coo()";
  };
  // cuSPARSE documents ALG2 (CSR and COO) as bitwise reproducible; ALG1 is not.
  reg.template add_spmv<CsrM>(
      cuda_baseline(Op::Spmv, Format::Csr, baselines::CusparseCsrAlg1, false), always<CsrM>,
      run(CUSPARSE_SPMV_CSR_ALG1, "CSR, CUSPARSE_SPMV_CSR_ALG1"));
  reg.template add_spmv<CsrM>(
      cuda_baseline(Op::Spmv, Format::Csr, baselines::CusparseCsrAlg2, true), always<CsrM>,
      run(CUSPARSE_SPMV_CSR_ALG2, "CSR, CUSPARSE_SPMV_CSR_ALG2"));
  reg.template add_spmv<CooM>(
      cuda_baseline(Op::Spmv, Format::Coo, baselines::CusparseCooAlg1, false), sorted,
      run(CUSPARSE_SPMV_COO_ALG1, "COO, CUSPARSE_SPMV_COO_ALG1"));
  reg.template add_spmv<CooM>(
      cuda_baseline(Op::Spmv, Format::Coo, baselines::CusparseCooAlg2, true), sorted,
      run(CUSPARSE_SPMV_COO_ALG2, "COO, CUSPARSE_SPMV_COO_ALG2"));
  // CSC: cuSPARSE's default algorithm (the CSR ones take CSR only).
  reg.template add_spmv<CscM>(cuda_baseline(Op::Spmv, Format::Csc, baselines::CusparseCsc, false),
                              always<CscM>,
                              run(CUSPARSE_SPMV_ALG_DEFAULT, "CSC, CUSPARSE_SPMV_ALG_DEFAULT"));
}

#define SPX_INST(T, I) template void register_cusparse(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::baselines
