// The CUDA kernels of the ELLPACK family in the registry (ELL, SELL, HLL,
// JAD, HYB), their Auto rules, and the cuSPARSE SELL baseline. Called from
// src/cuda/register.cu.
//
// Determinism: every kernel here sums each row in a fixed order (lanes'
// partial sums added in lane order), except HYB, whose COO part adds with
// atomics. cuSPARSE SELL ALG1 is documented as reproducible.
#include "core/instantiate.hpp"
#include "cuda/ellpack_kernels.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_ellpack_kernels(Registry<T, I>& reg) {
  using EllM = Ell<T, I>;
  using SellM = Sell<T, I>;
  using HllM = Hll<T, I>;
  using JadM = Jad<T, I>;
  using HybM = Hyb<T, I>;
  const auto info = [](Algorithm a, bool deterministic) {
    // The format is set by add_spmv from the matrix type.
    return KernelInfo{Op::Spmv, Format::Csr, a, Backend::Cuda, deterministic, false};
  };

  // ELL
  reg.template add_spmv<EllM>(info(Algorithm::ThreadPerRow, true), always<EllM>,
                              cuda::spmv_ell_thread<T, I>);
  reg.template add_spmv<EllM>(info(Algorithm::TwoThreadsPerRow, true), always<EllM>,
                              cuda::spmv_ell_two_threads<T, I>);
  reg.template set_spmv_auto<EllM>(Backend::Cuda, cuda::choose_ell<T, I>);

  // SELL-C-σ / SELL-P
  reg.template add_spmv<SellM>(info(Algorithm::ThreadPerRow, true), always<SellM>,
                               cuda::spmv_sell_thread<T, I>);
  reg.template add_spmv<SellM>(info(Algorithm::ThreadsPerRow, true), always<SellM>,
                               cuda::spmv_sell_threads<T, I>);
  reg.template set_spmv_auto<SellM>(Backend::Cuda, cuda::choose_sell<T, I>);

  // HLL
  reg.template add_spmv<HllM>(info(Algorithm::ThreadPerRow, true), always<HllM>,
                              cuda::spmv_hll_thread<T, I>);
  reg.template add_spmv<HllM>(info(Algorithm::TwoThreadsPerRow, true), always<HllM>,
                              cuda::spmv_hll_two_threads<T, I>);
  reg.template set_spmv_auto<HllM>(Backend::Cuda, cuda::choose_hll<T, I>);

  // JAD
  reg.template add_spmv<JadM>(info(Algorithm::Jagged, true), always<JadM>, cuda::spmv_jad<T, I>);
  reg.template set_spmv_auto<JadM>(Backend::Cuda, [](const JadM&) { return Algorithm::Jagged; });

  // HYB
  reg.template add_spmv<HybM>(info(Algorithm::Hybrid, false), always<HybM>, cuda::spmv_hyb<T, I>);
  reg.template set_spmv_auto<HybM>(Backend::Cuda, [](const HybM&) { return Algorithm::Hybrid; });

  // Baseline (tests and benchmark only; Auto never picks it).
}

#define SPX_INST(T, I) template void register_cuda_ellpack_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
