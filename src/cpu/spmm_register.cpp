// The CPU backend's SpMM entries in the kernel registry, and its Auto rules.
#include "core/instantiate.hpp"
#include "core/spmm_backend.hpp"
#include "cpu/common.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::detail {

template <Value T>
void cpu_scale_dense(T beta, DenseView<T> C) {
  cpu::scale_dense(beta, C);
}
template void cpu_scale_dense(float, DenseView<float>);
template void cpu_scale_dense(double, DenseView<double>);

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
}

#define SPX_INST(T, I) template void register_cpu_spmm_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
