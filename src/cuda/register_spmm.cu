// The CUDA backend's SpMM entries in the kernel registry, and its Auto rule.
#include "core/instantiate.hpp"
#include "core/spmm_backend.hpp"
#include "cuda/spmm.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_spmm_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  const auto gpu = [](Algorithm a) {
    return KernelInfo{Op::Spmm, Format::Csr, a, Backend::Cuda, true, false};
  };
  reg.template add_spmm<CsrM>(gpu(Algorithm::RowSplit), cuda::spmm_csr_can_run<T, I>,
                              cuda::spmm_csr_row_split<T, I>);
  reg.template add_spmm<CsrM>(gpu(Algorithm::MergeBased), cuda::spmm_csr_can_run<T, I>,
                              cuda::spmm_csr_merge_based<T, I>);
  // Auto (paper §5.4): merge-based for short rows, row split for long ones.
  reg.template set_spmm_auto<CsrM>(Backend::Cuda, [](const CsrM& A, const SpmmShape&) {
    const double mean_row = A.rows() > 0 ? static_cast<double>(A.nnz()) / A.rows() : 0.0;
    return mean_row < cuda::kSpmmMergeThreshold ? Algorithm::MergeBased : Algorithm::RowSplit;
  });
  cuda::register_spmm_baselines(reg);
}

#define SPX_INST(T, I) template void register_cuda_spmm_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
