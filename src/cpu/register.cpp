// The CPU backend's entries in the kernel registry, and its Auto rules.
#include "core/backend.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_backend.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"

namespace spx::detail {

template <Value T>
void cpu_scale(T beta, T* y, std::int64_t n) {
  cpu::scale(beta, y, n);
}
template void cpu_scale(float, float*, std::int64_t);
template void cpu_scale(double, double*, std::int64_t);

template <Value T, Index I>
void register_cpu_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  using CscM = Csc<T, I>;
  const auto cpu = [](Algorithm a, bool deterministic = true) {
    return KernelInfo{Op::Spmv, Format::Csr, a, Backend::Cpu, deterministic, false};
  };

  // CSR
  reg.template add_spmv<CsrM>(cpu(Algorithm::CpuMerge), always<CsrM>, cpu::spmv_csr_merge<T, I>);
  reg.template set_spmv_auto<CsrM>(Backend::Cpu, [](const CsrM&) { return Algorithm::CpuMerge; });

  // COO
  reg.template add_spmv<CooM>(
      cpu(Algorithm::CpuSegments),
      [](const CooM& A) -> std::string {
        return A.sorted() ? "" : "entries are not sorted by (row, column); use sort_coo()";
      },
      cpu::spmv_coo_segments<T, I>);
  reg.template add_spmv<CooM>(
      cpu(Algorithm::CpuPrivate), [](const CooM& A) { return cpu::private_fits<T>(A.rows()); },
      cpu::spmv_coo_private<T, I>);
  reg.template add_spmv<CooM>(cpu(Algorithm::CpuAtomic, false), always<CooM>,
                              cpu::spmv_coo_atomic<T, I>);
  reg.template set_spmv_auto<CooM>(Backend::Cpu, [](const CooM& A) {
    if (A.sorted()) return Algorithm::CpuSegments;
    return cpu::private_fits<T>(A.rows()).empty() ? Algorithm::CpuPrivate : Algorithm::CpuAtomic;
  });

  // CSC
  reg.template add_spmv<CscM>(
      cpu(Algorithm::CpuPrivate), [](const CscM& A) { return cpu::private_fits<T>(A.rows()); },
      cpu::spmv_csc_private<T, I>);
  reg.template add_spmv<CscM>(cpu(Algorithm::CpuAtomic, false), always<CscM>,
                              cpu::spmv_csc_atomic<T, I>);
  reg.template set_spmv_auto<CscM>(Backend::Cpu, [](const CscM& A) {
    return cpu::private_fits<T>(A.rows()).empty() ? Algorithm::CpuPrivate : Algorithm::CpuAtomic;
  });

  register_cpu_spmm_kernels(reg);
}

#define SPX_INST(T, I) template void register_cpu_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
