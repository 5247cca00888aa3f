// The CPU backend: its module (src/core/backend.hpp), its entries in the
// kernel registry, its Auto rules and its vector operations. Host memory and
// host conversions are the core's.
#include "cpu/register.hpp"

#include "core/backend.hpp"
#include "core/instantiate.hpp"
#include "cpu/batch_kernels.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::detail {

/// Registers format M's one CPU kernel (deterministic, runs on any matrix of
/// the format) and makes it M's Auto choice.
template <class M, Value T, Index I>
void add_only_kernel(Registry<T, I>& reg, Algorithm algorithm,
                     void (*run)(T, const M&, const T*, T, T*, const ExecContext&)) {
  reg.template add_spmv<M>(KernelInfo{Op::Spmv, M::kFormat, algorithm, Backend::Cpu, true, false},
                           always<M>, run);
  reg.template set_spmv_auto<M>(Backend::Cpu, [algorithm](const M&) { return algorithm; });
}

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

  // The other formats have one kernel each: a thread per block of rows (ELL,
  // SELL slices, HLL hacks, DIA, HDI, HYB, JAD) or per block row (BCSR).
  constexpr Algorithm rows = Algorithm::CpuRows;
  add_only_kernel<Ell<T, I>>(reg, rows, cpu::spmv_ell_rows<T, I>);
  add_only_kernel<Sell<T, I>>(reg, rows, cpu::spmv_sell_rows<T, I>);
  add_only_kernel<Hll<T, I>>(reg, rows, cpu::spmv_hll_rows<T, I>);
  add_only_kernel<Dia<T, I>>(reg, rows, cpu::spmv_dia_rows<T, I>);
  add_only_kernel<Hdi<T, I>>(reg, rows, cpu::spmv_hdi_rows<T, I>);
  add_only_kernel<Hyb<T, I>>(reg, rows, cpu::spmv_hyb_rows<T, I>);
  add_only_kernel<Jad<T, I>>(reg, rows, cpu::spmv_jad_rows<T, I>);
  add_only_kernel<Bcsr<T, I>>(reg, Algorithm::CpuBlockRows, cpu::spmv_bcsr_block_rows<T, I>);

  cpu::register_batch_kernels(reg);  // batched SpMV (src/cpu/batch_spmv.cpp)
  register_cpu_spmm_kernels(reg);

  reg.set_vector_ops(Backend::Cpu,
                     VectorOps<T>{[](T beta, T* y, std::int64_t n, const ExecContext&) {
                                    cpu::scale(beta, y, n);
                                  },
                                  [](T beta, DenseView<T> C, const ExecContext&) {
                                    cpu::scale_dense(beta, C);
                                  }});
}

#define SPX_INST(T, I) template void register_cpu_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

namespace {
bool always_available() noexcept {
  return true;
}
}  // namespace

const BackendModule& cpu_backend_module() {
  static const BackendModule module{
      .backend = Backend::Cpu,
      .space = Space::Host,
      .available = always_available,
      .register_f32_i32 = register_cpu_kernels<float, std::int32_t>,
      .register_f32_i64 = register_cpu_kernels<float, std::int64_t>,
      .register_f64_i32 = register_cpu_kernels<double, std::int32_t>,
      .register_f64_i64 = register_cpu_kernels<double, std::int64_t>,
  };
  return module;
}

}  // namespace spx::detail
