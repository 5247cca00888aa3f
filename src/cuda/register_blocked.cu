// Registration of the CUDA kernels for DIA, HDI and BCSR, their Auto rules,
// and the cuSPARSE BSR baselines. All SpX kernels here are deterministic.
//
// Auto rules: DIA and HDI have one kernel each (diagonal); BCSR chooses by
// block size (choose_bcsr in bcsr.cu): b ≤ 3 block_sub_warp, b = 4
// block_by_block, 5 ≤ b < 24 block_by_column, b ≥ 24 block_row_shared.
// RunInfo::algorithm reports the choice.
#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_blocked_kernels(Registry<T, I>& reg) {
  using DiaM = Dia<T, I>;
  using HdiM = Hdi<T, I>;
  using BcsrM = Bcsr<T, I>;
  const auto info = [](Format f, Algorithm a) {
    return KernelInfo{Op::Spmv, f, a, Backend::Cuda, true, false};
  };

  reg.template add_spmv<DiaM>(info(Format::Dia, Algorithm::Diagonal), always<DiaM>,
                              cuda::spmv_dia<T, I>);
  reg.template set_spmv_auto<DiaM>(Backend::Cuda, [](const DiaM&) { return Algorithm::Diagonal; });

  reg.template add_spmv<HdiM>(info(Format::Hdi, Algorithm::Diagonal), always<HdiM>,
                              cuda::spmv_hdi<T, I>);
  reg.template set_spmv_auto<HdiM>(Backend::Cuda, [](const HdiM&) { return Algorithm::Diagonal; });

  const auto bcsr_can_run = [](Algorithm a) {
    return [a](const BcsrM& A) { return cuda::bcsr_refusal(a, A.block_size()); };
  };
  reg.template add_spmv<BcsrM>(info(Format::Bcsr, Algorithm::BlockByBlock),
                               bcsr_can_run(Algorithm::BlockByBlock),
                               cuda::spmv_bcsr_by_block<T, I>);
  reg.template add_spmv<BcsrM>(info(Format::Bcsr, Algorithm::BlockByColumn),
                               bcsr_can_run(Algorithm::BlockByColumn),
                               cuda::spmv_bcsr_by_column<T, I>);
  reg.template add_spmv<BcsrM>(info(Format::Bcsr, Algorithm::BlockRowShared),
                               bcsr_can_run(Algorithm::BlockRowShared),
                               cuda::spmv_bcsr_row_shared<T, I>);
  reg.template add_spmv<BcsrM>(info(Format::Bcsr, Algorithm::BlockSubWarp),
                               bcsr_can_run(Algorithm::BlockSubWarp),
                               cuda::spmv_bcsr_sub_warp<T, I>);
  reg.template set_spmv_auto<BcsrM>(
      Backend::Cuda, [](const BcsrM& A) { return cuda::choose_bcsr(A.block_size()); });

  // Baselines (tests and benchmark only; Auto never picks them).
}

#define SPX_INST(T, I) template void register_cuda_blocked_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
