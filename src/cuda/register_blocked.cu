// Registration of the CUDA kernels for DIA, DIA-LP, HDI, SYM_DIA and BCSR, their Auto rules,
// and the cuSPARSE BSR baselines. All SpX kernels here are deterministic.
//
// Auto rules: DIA, DIA-LP, HDI and SYM_DIA have one kernel each (diagonal); BCSR chooses by
// block size (choose_bcsr in bcsr.cu): b ≤ 3 block_sub_warp, b = 4
// block_by_block, 5 ≤ b < 24 block_by_column, b ≥ 24 block_row_shared.
// RunInfo::algorithm reports the choice.
#include "core/instantiate.hpp"
#include "cuda/blocked_kernels.hpp"
#include "cuda/register.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_blocked_kernels(Registry<T, I>& reg) {
  using BcsrM = Bcsr<T, I>;

  add_only_spmv(reg, Algorithm::Diagonal, true, cuda::spmv_dia<T, I>);
  add_only_spmv(reg, Algorithm::Diagonal, true, cuda::spmv_dia_lp<T, I>);
  add_only_spmv(reg, Algorithm::Diagonal, true, cuda::spmv_hdi<T, I>);
  add_only_spmv(reg, Algorithm::Diagonal, true, cuda::spmv_sym_dia<T, I>);

  const std::pair<Algorithm, CudaSpmv<BcsrM, T>> bcsr[] = {
      {Algorithm::BlockByBlock, cuda::spmv_bcsr_by_block<T, I>},
      {Algorithm::BlockByColumn, cuda::spmv_bcsr_by_column<T, I>},
      {Algorithm::BlockRowShared, cuda::spmv_bcsr_row_shared<T, I>},
      {Algorithm::BlockSubWarp, cuda::spmv_bcsr_sub_warp<T, I>},
  };
  for (const auto& [algorithm, run] : bcsr) {
    const Algorithm a = algorithm;  // each kernel refuses the block sizes it cannot take
    reg.template add_spmv<BcsrM>(
        cuda_kernel(a), [a](const BcsrM& A) { return cuda::bcsr_refusal(a, A.block_size()); }, run);
  }
  reg.template set_spmv_auto<BcsrM>(
      Backend::Cuda, [](const BcsrM& A) { return cuda::choose_bcsr(A.block_size()); });

  // Baselines (tests and benchmark only; Auto never picks them).
}

#define SPX_INST(T, I) template void register_cuda_blocked_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
