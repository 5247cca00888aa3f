// The CPU backend: its module (src/core/backend.hpp), its entries in the
// kernel registry (SpMV, SpMM, and batched SpMV through
// cpu::register_batch_kernels), its Auto rules and its vector operations.
// Host memory and host conversions are the core's.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/instantiate.hpp"
#include "cpu/batch_kernels.hpp"
#include "cpu/common.hpp"
#include "cpu/kernels.hpp"
#include "cpu/spmm_kernels.hpp"

namespace spx::detail {
namespace {

/// The KernelInfo of a CPU kernel.
KernelInfo cpu_kernel(Op op, Format format, Algorithm algorithm, bool deterministic = true) {
  return KernelInfo{op, format, algorithm, Backend::Cpu, deterministic, false};
}

/// Registers format M's one CPU kernel for SpMV and for SpMM (deterministic,
/// runs on any matrix of the format, any n and layouts) and makes it M's Auto
/// choice for both.
template <class M, Value T, Index I>
void add_only_kernel(Registry<T, I>& reg, Algorithm algorithm,
                     void (*spmv)(T, const M&, const T*, T, T*, const ExecContext&),
                     void (*spmm)(T, const M&, DenseView<const T>, T, DenseView<T>,
                                  const ExecContext&)) {
  reg.template add_spmv<M>(cpu_kernel(Op::Spmv, M::kFormat, algorithm), always<M>, spmv);
  reg.template set_spmv_auto<M>(Backend::Cpu, [algorithm](const M&) { return algorithm; });
  reg.template add_spmm<M>(cpu_kernel(Op::Spmm, M::kFormat, algorithm), always_spmm<M>, spmm);
  reg.template set_spmm_auto<M>(Backend::Cpu,
                                [algorithm](const M&, const SpmmShape&) { return algorithm; });
}

/// Registers the SpMV kernels of a format whose entries scatter into y (COO,
/// CSC): per-thread private copies of y (deterministic), allowed while they
/// fit under kPrivateBytesLimit, and atomic updates (not deterministic).
template <class M, Value T, Index I>
void add_scatter_kernels(Registry<T, I>& reg,
                         void (*private_run)(T, const M&, const T*, T, T*, const ExecContext&),
                         void (*atomic_run)(T, const M&, const T*, T, T*, const ExecContext&)) {
  reg.template add_spmv<M>(
      cpu_kernel(Op::Spmv, M::kFormat, Algorithm::CpuPrivate),
      [](const M& A) { return cpu::private_fits<T>(A.rows()); }, private_run);
  reg.template add_spmv<M>(cpu_kernel(Op::Spmv, M::kFormat, Algorithm::CpuAtomic, false), always<M>,
                           atomic_run);
}

/// The scatter kernel Auto takes: private copies of y when they fit, else atomics.
template <Value T>
Algorithm private_or_atomic(std::int64_t rows) {
  return cpu::private_fits<T>(rows).empty() ? Algorithm::CpuPrivate : Algorithm::CpuAtomic;
}

}  // namespace

template <Value T, Index I>
void register_cpu_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  using CooM = Coo<T, I>;
  using CscM = Csc<T, I>;
  const auto coo_sorted = [](const CooM& A) -> std::string {
    return A.sorted() ? "" : "entries are not sorted by (row, column); use sort_coo()";
  };

  // ---- SpMV ----
  // CSR
  reg.template add_spmv<CsrM>(cpu_kernel(Op::Spmv, Format::Csr, Algorithm::CpuMerge), always<CsrM>,
                              cpu::spmv_csr_merge<T, I>);
  reg.template set_spmv_auto<CsrM>(Backend::Cpu, [](const CsrM&) { return Algorithm::CpuMerge; });

  // COO
  reg.template add_spmv<CooM>(cpu_kernel(Op::Spmv, Format::Coo, Algorithm::CpuSegments), coo_sorted,
                              cpu::spmv_coo_segments<T, I>);
  add_scatter_kernels<CooM>(reg, cpu::spmv_coo_private<T, I>, cpu::spmv_coo_atomic<T, I>);
  reg.template set_spmv_auto<CooM>(Backend::Cpu, [](const CooM& A) {
    return A.sorted() ? Algorithm::CpuSegments : private_or_atomic<T>(A.rows());
  });

  // CSC
  add_scatter_kernels<CscM>(reg, cpu::spmv_csc_private<T, I>, cpu::spmv_csc_atomic<T, I>);
  reg.template set_spmv_auto<CscM>(Backend::Cpu,
                                   [](const CscM& A) { return private_or_atomic<T>(A.rows()); });

  // ---- SpMM ----
  // CSR
  reg.template add_spmm<CsrM>(cpu_kernel(Op::Spmm, Format::Csr, Algorithm::CpuMerge),
                              always_spmm<CsrM>, cpu::spmm_csr_merge<T, I>);
  reg.template set_spmm_auto<CsrM>(
      Backend::Cpu, [](const CsrM&, const SpmmShape&) { return Algorithm::CpuMerge; });

  // COO
  reg.template add_spmm<CooM>(
      cpu_kernel(Op::Spmm, Format::Coo, Algorithm::CpuSegments),
      [coo_sorted](const CooM& A, const SpmmShape&) { return coo_sorted(A); },
      cpu::spmm_coo_segments<T, I>);
  reg.template add_spmm<CooM>(cpu_kernel(Op::Spmm, Format::Coo, Algorithm::CpuAtomic, false),
                              always_spmm<CooM>, cpu::spmm_coo_atomic<T, I>);
  reg.template set_spmm_auto<CooM>(Backend::Cpu, [](const CooM& A, const SpmmShape&) {
    return A.sorted() ? Algorithm::CpuSegments : Algorithm::CpuAtomic;
  });

  // CSC
  reg.template add_spmm<CscM>(
      cpu_kernel(Op::Spmm, Format::Csc, Algorithm::CpuPrivate),
      [](const CscM& A, const SpmmShape& s) { return cpu::private_dense_fits<T>(A.rows(), s.n); },
      cpu::spmm_csc_private<T, I>);
  reg.template add_spmm<CscM>(cpu_kernel(Op::Spmm, Format::Csc, Algorithm::CpuAtomic, false),
                              always_spmm<CscM>, cpu::spmm_csc_atomic<T, I>);
  reg.template set_spmm_auto<CscM>(Backend::Cpu, [](const CscM& A, const SpmmShape& s) {
    return cpu::private_dense_fits<T>(A.rows(), s.n).empty() ? Algorithm::CpuPrivate
                                                             : Algorithm::CpuAtomic;
  });

  // ---- SpMV and SpMM of the other formats ----
  // One kernel each: a thread per block of rows (ELL, SELL slices, HLL hacks,
  // DIA, HDI, HYB, JAD; for SpMM the row driver of spmm_rows.hpp) or per block
  // row (BCSR).
  constexpr Algorithm rows = Algorithm::CpuRows;
  add_only_kernel<Ell<T, I>>(reg, rows, cpu::spmv_ell_rows<T, I>, cpu::spmm_ell_rows<T, I>);
  add_only_kernel<Sell<T, I>>(reg, rows, cpu::spmv_sell_rows<T, I>, cpu::spmm_sell_rows<T, I>);
  add_only_kernel<SellLp<T, I>>(reg, rows, cpu::spmv_sell_lp_rows<T, I>,
                                cpu::spmm_sell_lp_rows<T, I>);
  add_only_kernel<Hll<T, I>>(reg, rows, cpu::spmv_hll_rows<T, I>, cpu::spmm_hll_rows<T, I>);
  add_only_kernel<Dia<T, I>>(reg, rows, cpu::spmv_dia_rows<T, I>, cpu::spmm_dia_rows<T, I>);
  add_only_kernel<DiaLp<T, I>>(reg, rows, cpu::spmv_dia_lp_rows<T, I>, cpu::spmm_dia_lp_rows<T, I>);
  add_only_kernel<Hdi<T, I>>(reg, rows, cpu::spmv_hdi_rows<T, I>, cpu::spmm_hdi_rows<T, I>);
  add_only_kernel<Hyb<T, I>>(reg, rows, cpu::spmv_hyb_rows<T, I>, cpu::spmm_hyb_rows<T, I>);
  add_only_kernel<Jad<T, I>>(reg, rows, cpu::spmv_jad_rows<T, I>, cpu::spmm_jad_rows<T, I>);
  add_only_kernel<SellPack<T, I>>(reg, rows, cpu::spmv_sell_pack_rows<T, I>,
                                  cpu::spmm_sell_pack_rows<T, I>);
  // SYM_CSR: row ranges per thread, the mirrors of the lower triangle into
  // the own range or a private buffer (sym_csr.cpp).
  add_only_kernel<SymCsr<T, I>>(reg, rows, cpu::spmv_sym_csr_rows<T, I>,
                                cpu::spmm_sym_csr_rows<T, I>);
  // SYM_DIA: DIA's blocks of rows, each lower diagonal applied twice (sym_dia.cpp).
  add_only_kernel<SymDia<T, I>>(reg, rows, cpu::spmv_sym_dia_rows<T, I>,
                                cpu::spmm_sym_dia_rows<T, I>);
  add_only_kernel<Bcsr<T, I>>(reg, Algorithm::CpuBlockRows, cpu::spmv_bcsr_block_rows<T, I>,
                              cpu::spmm_bcsr_block_rows<T, I>);

  cpu::register_batch_kernels(reg);  // batched SpMV (src/cpu/batch_spmv.cpp)

  reg.set_vector_ops(
      Backend::Cpu,
      VectorOps<T>{[](T beta, T* y, std::int64_t n, const ExecContext&) { cpu::scale(beta, y, n); },
                   [](T beta, DenseView<T> C, const ExecContext&) { cpu::scale_dense(beta, C); }});
}

#define SPX_INST(T, I) template void register_cpu_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

namespace {
/// STREAM-like copy b[i] = a[i] over two arrays of 64 MiB, first touched by
/// the copying threads: median of 3 after a warm-up; bytes read + written.
double cpu_copy_bandwidth() {
  const std::int64_t n = (std::int64_t{64} << 20) / static_cast<std::int64_t>(sizeof(double));
  Array<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  double* pa = a.data();
  double* pb = b.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    pa[i] = static_cast<double>(i & 7);
    pb[i] = 0;
  }
  std::vector<double> seconds;
  for (int rep = 0; rep < 4; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      pb[i] = pa[i];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) seconds.push_back(s);
  }
  std::sort(seconds.begin(), seconds.end());
  return 2.0 * static_cast<double>(n * sizeof(double)) / std::max(seconds[1], 1e-9);
}

bool always_available() noexcept {
  return true;
}
}  // namespace

const BackendModule& cpu_backend_module() {
  static const BackendModule module{
      .backend = Backend::Cpu,
      .space = Space::Host,
      .available = always_available,
      .copy_bandwidth = cpu_copy_bandwidth,
      .register_f32_i32 = register_cpu_kernels<float, std::int32_t>,
      .register_f32_i64 = register_cpu_kernels<float, std::int64_t>,
      .register_f64_i32 = register_cpu_kernels<double, std::int32_t>,
      .register_f64_i64 = register_cpu_kernels<double, std::int64_t>,
  };
  return module;
}

}  // namespace spx::detail
