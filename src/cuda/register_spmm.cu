// The CUDA backend's SpMM entries in the kernel registry, and its Auto rule.
#include <cstdint>

#include "core/convert_ellpack.hpp"
#include "core/instantiate.hpp"
#include "cuda/csc.hpp"
#include "cuda/kernels.hpp"
#include "cuda/launch.hpp"
#include "cuda/register.hpp"
#include "cuda/spmm.hpp"

namespace spx::detail {
namespace {

template <Value T, Index I>
std::int64_t max_row_length(const Csr<T, I>& A) {
  if (A.space() == Space::Device) return cuda::csr_row_stats(A).max_len;
  return longest_row(A.row_ptr().data(), A.rows());
}

}  // namespace

template <Value T, Index I>
void register_cuda_spmm_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  reg.template add_spmm<CsrM>(cuda_kernel(Algorithm::RowSplit), cuda::spmm_csr_can_run<T, I>,
                              cuda::spmm_csr_row_split<T, I>);
  reg.template add_spmm<CsrM>(cuda_kernel(Algorithm::MergeBased), cuda::spmm_csr_can_run<T, I>,
                              cuda::spmm_csr_merge_based<T, I>);
  reg.template add_spmm<CsrM>(cuda_kernel(Algorithm::RowPanel), cuda::spmm_csr_can_run<T, I>,
                              cuda::spmm_csr_row_panel<T, I>);
  // Auto: few rows take row split, irregular rows merge-based
  // (cuda::choose_spmm's rules 0 and 1, before the panel unions are
  // counted); n ≤ 16 row split where it takes row groups
  // (cuda::spmm_row_groups, rule 1b); then, for n > 16, row panel where cuda::panel_plan finds it
  // worth it (cuda::panel_worth_it; cuda::panel_beats_groups where row
  // split takes vector groups); otherwise cuda::choose_spmm (spmm.hpp). The
  // longest row comes from the cached device row statistics, the union
  // totals from a cached device pass (host passes for a host matrix). The
  // vector groups (cuda::spmm_vector_groups) and the row groups are judged
  // from the shape, the pointers' alignment included (SpmmShape::aligned),
  // as the kernels judge them (vector_fits).
  reg.template set_spmm_auto<CsrM>(Backend::Cuda, [](const CsrM& A, const SpmmShape& shape) {
    if (A.rows() == 0) return Algorithm::RowSplit;
    const double mean_row = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
    const std::int64_t max_row = max_row_length(A);
    const bool few_rows = cuda::few_rows(A.rows(), max_row);
    constexpr int kVec = sizeof(T) == 4 ? 4 : 2;
    const bool fits = shape.b_layout == Layout::RowMajor && shape.c_layout == Layout::RowMajor &&
                      shape.n % kVec == 0 && shape.ldb % kVec == 0 && shape.ldc % kVec == 0 &&
                      shape.aligned;
    const auto groups = [&](bool merge) {
      return cuda::spmm_vector_groups(shape.n, kVec, fits, merge, A.rows(), mean_row) > 0;
    };
    if (!few_rows && shape.n > 16 && !cuda::irregular_rows(mean_row, max_row)) {
      const cuda::PanelPlan plan = cuda::panel_plan(A, shape.n);
      if (groups(false)
              ? cuda::panel_beats_groups(plan.ratio, mean_row, cuda::few_warps(plan.warps))
              : plan.worth_it)
        return Algorithm::RowPanel;
    }
    const bool row_groups = cuda::spmm_row_groups(A.rows(), A.nnz(), max_row, shape.n, kVec, fits,
                                                  cuda::auto_device().sms);
    return cuda::choose_spmm(mean_row, max_row, shape.n, few_rows,
                             cuda::fits_l2(static_cast<std::int64_t>(A.bytes())), groups(true),
                             row_groups);
  });

  using CscM = Csc<T, I>;
  reg.template add_spmm<CscM>(cuda_kernel(Algorithm::Transposed), cuda::spmm_csc_can_run<T, I>,
                              cuda::spmm_csc_transposed<T, I>);
  reg.template set_spmm_auto<CscM>(
      Backend::Cuda, [](const CscM&, const SpmmShape&) { return Algorithm::Transposed; });
}

#define SPX_INST(T, I) template void register_cuda_spmm_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
