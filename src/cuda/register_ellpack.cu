// The CUDA kernels of the ELLPACK family in the registry (ELL, SELL,
// SELL-pack, HLL, JAD, HYB), their Auto rules, and the cuSPARSE SELL
// baseline. Called from src/cuda/register.cu.
//
// Determinism: every kernel here sums each row in a fixed order (lanes'
// partial sums added in lane order), except HYB, whose COO part adds with
// atomics. cuSPARSE SELL ALG1 is documented as reproducible.
#include "core/instantiate.hpp"
#include "cuda/ellpack_kernels.hpp"
#include "cuda/register.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_ellpack_kernels(Registry<T, I>& reg) {
  add_spmv_kernels<Ell<T, I>>(reg, cuda::choose_ellpack<Ell<T, I>>,
                              {{Algorithm::ThreadPerRow, cuda::spmv_ell_rows<1, T, I>},
                               {Algorithm::TwoThreadsPerRow, cuda::spmv_ell_rows<2, T, I>}});
  add_spmv_kernels<Sell<T, I>>(reg, cuda::choose_sell<T, I>,  // SELL-C-σ / SELL-P
                               {{Algorithm::ThreadPerRow, cuda::spmv_sell_thread<T, I>},
                                {Algorithm::ThreadsPerRow, cuda::spmv_sell_threads<T, I>}});
  add_spmv_kernels<SellPack<T, I>>(
      reg, cuda::choose_sell_pack<T, I>,  // SELL's, packed columns
      {{Algorithm::ThreadPerRow, cuda::spmv_sell_pack_thread<T, I>},
       {Algorithm::ThreadsPerRow, cuda::spmv_sell_pack_threads<T, I>}});
  // SELL-LP: SELL's kernels over reduced-precision values (opt-in format).
  add_spmv_kernels<SellLp<T, I>>(reg, cuda::choose_sell_lp<T, I>,
                                 {{Algorithm::ThreadPerRow, cuda::spmv_sell_lp_thread<T, I>},
                                  {Algorithm::ThreadsPerRow, cuda::spmv_sell_lp_threads<T, I>}});
  add_spmv_kernels<Hll<T, I>>(reg, cuda::choose_ellpack<Hll<T, I>>,
                              {{Algorithm::ThreadPerRow, cuda::spmv_hll_rows<1, T, I>},
                               {Algorithm::TwoThreadsPerRow, cuda::spmv_hll_rows<2, T, I>}});
  // JAD, HYB
  add_only_spmv(reg, Algorithm::Jagged, true, cuda::spmv_jad<T, I>);
  add_only_spmv(reg, Algorithm::Hybrid, false, cuda::spmv_hyb<T, I>);

  // Baseline (tests and benchmark only; Auto never picks it).
}

#define SPX_INST(T, I) template void register_cuda_ellpack_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
