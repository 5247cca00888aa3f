// The CPU backend's SpMM entries in the kernel registry, and its Auto rules.
#include "core/instantiate.hpp"
#include "cpu/common.hpp"
#include "cpu/register.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::detail {

/// Registers format M's one CPU SpMM kernel (deterministic, runs on any
/// matrix of the format, any n and layouts) and makes it M's Auto choice.
template <class M, Value T, Index I>
void add_only_spmm_kernel(Registry<T, I>& reg, Algorithm algorithm,
                          void (*run)(T, const M&, DenseView<const T>, T, DenseView<T>,
                                      const ExecContext&)) {
  reg.template add_spmm<M>(KernelInfo{Op::Spmm, M::kFormat, algorithm, Backend::Cpu, true, false},
                           always_spmm<M>, run);
  reg.template set_spmm_auto<M>(Backend::Cpu,
                                [algorithm](const M&, const SpmmShape&) { return algorithm; });
}

template <Value T, Index I>
void register_cpu_spmm_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  using CscM = Csc<T, I>;
  const auto cpu = [](Algorithm a, bool deterministic = true) {
    return KernelInfo{Op::Spmm, Format::Csr, a, Backend::Cpu, deterministic, false};
  };

  // CSR
  reg.template add_spmm<CsrM>(cpu(Algorithm::CpuMerge), always_spmm<CsrM>,
                              cpu::spmm_csr_merge<T, I>);
  reg.template set_spmm_auto<CsrM>(
      Backend::Cpu, [](const CsrM&, const SpmmShape&) { return Algorithm::CpuMerge; });

  // COO
  reg.template add_spmm<CooM>(
      cpu(Algorithm::CpuSegments),
      [](const CooM& A, const SpmmShape&) -> std::string {
        return A.sorted() ? "" : "entries are not sorted by (row, column); use sort_coo()";
      },
      cpu::spmm_coo_segments<T, I>);
  reg.template add_spmm<CooM>(cpu(Algorithm::CpuAtomic, false), always_spmm<CooM>,
                              cpu::spmm_coo_atomic<T, I>);
  reg.template set_spmm_auto<CooM>(Backend::Cpu, [](const CooM& A, const SpmmShape&) {
    return A.sorted() ? Algorithm::CpuSegments : Algorithm::CpuAtomic;
  });

  // CSC
  reg.template add_spmm<CscM>(
      cpu(Algorithm::CpuPrivate),
      [](const CscM& A, const SpmmShape& s) { return cpu::private_dense_fits<T>(A.rows(), s.n); },
      cpu::spmm_csc_private<T, I>);
  reg.template add_spmm<CscM>(cpu(Algorithm::CpuAtomic, false), always_spmm<CscM>,
                              cpu::spmm_csc_atomic<T, I>);
  reg.template set_spmm_auto<CscM>(Backend::Cpu, [](const CscM& A, const SpmmShape& s) {
    return cpu::private_dense_fits<T>(A.rows(), s.n).empty() ? Algorithm::CpuPrivate
                                                             : Algorithm::CpuAtomic;
  });

  // The other formats have one kernel each: the row driver of spmm_rows.hpp
  // (ELL, SELL, HLL, HYB, DIA, HDI, JAD) or a thread per block row (BCSR).
  constexpr Algorithm rows = Algorithm::CpuRows;
  add_only_spmm_kernel<Ell<T, I>>(reg, rows, cpu::spmm_ell_rows<T, I>);
  add_only_spmm_kernel<Sell<T, I>>(reg, rows, cpu::spmm_sell_rows<T, I>);
  add_only_spmm_kernel<Hll<T, I>>(reg, rows, cpu::spmm_hll_rows<T, I>);
  add_only_spmm_kernel<Hyb<T, I>>(reg, rows, cpu::spmm_hyb_rows<T, I>);
  add_only_spmm_kernel<Dia<T, I>>(reg, rows, cpu::spmm_dia_rows<T, I>);
  add_only_spmm_kernel<Hdi<T, I>>(reg, rows, cpu::spmm_hdi_rows<T, I>);
  add_only_spmm_kernel<Jad<T, I>>(reg, rows, cpu::spmm_jad_rows<T, I>);
  add_only_spmm_kernel<Bcsr<T, I>>(reg, Algorithm::CpuBlockRows, cpu::spmm_bcsr_block_rows<T, I>);
}

#define SPX_INST(T, I) template void register_cpu_spmm_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
