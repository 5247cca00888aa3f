// spx::baselines::install(): names the baseline algorithms and adds every
// baseline of this build to the registries.
#include <mutex>

#include "baselines/baselines.hpp"
#include "core/instantiate.hpp"

namespace spx::baselines {
namespace {

template <Value T, Index I>
void add_all(Registry<T, I>& reg) {
  detail::register_eigen_baseline(reg);
#if SPX_HAVE_CUDA
  register_cusparse(reg);
  register_cusparse_sell(reg);
  register_cusparse_bsr(reg);
  register_cusparse_batch(reg);
  register_spmm_baselines(reg);
#endif
}

}  // namespace

void install() {
  static std::once_flag once;
  std::call_once(once, [] {
    name_external_algorithm(CusparseCsrAlg1, "cusparse_csr_alg1");
    name_external_algorithm(CusparseCsrAlg2, "cusparse_csr_alg2");
    name_external_algorithm(CusparseCooAlg1, "cusparse_coo_alg1");
    name_external_algorithm(CusparseCooAlg2, "cusparse_coo_alg2");
    name_external_algorithm(CusparseSellAlg1, "cusparse_sell_alg1");
    name_external_algorithm(CusparseBsrAlg1, "cusparse_bsr_alg1");
    name_external_algorithm(CusparseBsrmv, "cusparse_bsrmv");
    name_external_algorithm(Eigen, "eigen");
    name_external_algorithm(CusparseSpmmAlg1, "cusparse_spmm_alg1");
    name_external_algorithm(CusparseSpmmAlg2, "cusparse_spmm_alg2");
    name_external_algorithm(CusparseSpmmAlg3, "cusparse_spmm_alg3");
    name_external_algorithm(CublasGemm, "cublas_gemm");
    name_external_algorithm(CusparseLoop, "cusparse_loop");
    name_external_algorithm(CusparseCsc, "cusparse_csc");
#define SPX_INST(T, I) Registry<T, I>::extend(add_all<T, I>);
    SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST
  });
}

}  // namespace spx::baselines
