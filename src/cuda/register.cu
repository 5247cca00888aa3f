// The CUDA backend's entries in the kernel registry, and its Auto rules.
//
// Determinism (KernelInfo::deterministic, reported in RunInfo and the
// benchmark JSON): every CSR kernel is bitwise reproducible run to run
// (scalar, vector and adaptive reduce in a fixed order; balanced, merge
// path and split fix up carry-outs in a fixed order, without atomics). The COO kernel is
// not: it adds run sums with atomics. CSC: column scatter adds with atomics
// (not deterministic); the transposed kernel sums each row in a fixed order. Among the baselines,
// cuSPARSE ALG2 (CSR and COO) is documented as reproducible, ALG1 is not.
#include "cuda/register.hpp"

#include "core/instantiate.hpp"
#include "cuda/batch_kernels.hpp"
#include "cuda/csc.hpp"
#include "cuda/csr_columns.hpp"
#include "cuda/kernels.hpp"
#include "spx/core/error.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  add_spmv_kernels<CsrM>(reg, cuda::choose_csr<T, I>,
                         {{Algorithm::Scalar, cuda::spmv_csr_scalar<T, I>},
                          {Algorithm::Vector, cuda::spmv_csr_vector<T, I>},
                          {Algorithm::Adaptive, cuda::spmv_csr_adaptive<T, I>},
                          {Algorithm::Balanced, cuda::spmv_csr_balanced<T, I>},
                          {Algorithm::MergePath, cuda::spmv_csr_merge<T, I>},
                          {Algorithm::Binned, cuda::spmv_csr_binned<T, I>},
                          {Algorithm::NonzeroSplit, cuda::spmv_csr_split<T, I>}});
  add_only_spmv(reg, Algorithm::Segmented, false, cuda::spmv_coo_segmented<T, I>);
  using CscM = Csc<T, I>;
  reg.template add_spmv<CscM>(cuda_kernel(Algorithm::ColumnScatter, false), always<CscM>,
                              cuda::spmv_csc_scatter<T, I>);
  reg.template add_spmv<CscM>(cuda_kernel(Algorithm::Transposed), always<CscM>,
                              cuda::spmv_csc_transposed<T, I>);
  reg.template set_spmv_auto<CscM>(Backend::Cuda, cuda::choose_csc<T, I>);

  // SYM_CSR: one kernel, lanes per row with atomic mirrors (sym_csr.cu).
  add_only_spmv(reg, Algorithm::Adaptive, false, cuda::spmv_sym_csr_atomic<T, I>);

  register_cuda_ellpack_kernels(reg);  // ELL, SELL, HLL, JAD, HYB (src/cuda/register_ellpack.cu)

  spx::cuda::register_batch_kernels(reg);  // batched SpMV (src/cuda/register_batch.cu)
  register_cuda_spmm_kernels(reg);
  register_cuda_blocked_kernels(reg);  // DIA, HDI, BCSR (src/cuda/register_blocked.cu)
  register_cuda_conversions(reg);      // CSR → any format on the device (convert_device.cpp)

  reg.set_vector_ops(Backend::Cuda, VectorOps<T>{cuda_scale<T>, cuda_scale_dense<T>});
  // The row lengths from the cached statistics CSR's Auto rule computes anyway.
  reg.set_csr_row_lengths(Backend::Cuda, [](const Csr<T, I>& A) {
    if (A.space() != Space::Device)
      throw InvalidInput("csr_row_lengths: the CUDA backend measures a CSR in device memory");
    const cuda::CsrRowStats s = cuda::csr_row_stats(A);
    return RowLengths{s.max_len, s.empty_rows, s.mean, s.stddev};
  });
  // The advisor's column statistics of a device CSR, without a host copy (csr_columns.cu).
  reg.set_column_reader(
      Backend::Cuda,
      ColumnReader<T, I>{cuda::csr_column_counts<T, I>, cuda::csr_hack_diagonals<T, I>,
                         cuda::csr_blocks<T, I>, cuda::csr_symmetric_diagonal<T, I>,
                         cuda::csr_packed_entries<T, I>, cuda::csr_row_ends<T, I>});
}

#define SPX_INST(T, I) template void register_cuda_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
