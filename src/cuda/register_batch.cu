// The CUDA backend's batched SpMV kernels in the registry, and their Auto
// rules. Host code (no device code here); no fmt (nvcc).
//
// Auto rule (from the H200 batch benchmark, bench/results/batch-*.json):
//   CSR -> Scalar when the batch's mean row length is at most 16: a thread per
//          row reached 84% of the copy bandwidth on 10,000 matrices of
//          100-1024 rows (8 per row), 2.5x faster than SizedBlocks and 2.2x
//          faster than the per-matrix smart vector length; otherwise
//          SizedBlocks, which splits long rows over lanes and large matrices
//          over blocks (scalar's bad case is long rows).
//   COO -> Segmented, ELL -> ThreadPerRow (one kernel each).
#include <string>

#include "core/instantiate.hpp"
#include "cuda/batch_kernels.hpp"
#include "cuda/register.hpp"

namespace spx::cuda {

namespace {

/// One block per matrix: the grid must hold the batch.
template <class B>
std::string one_block_per_matrix(const B& A) {
  if (A.count() > kMaxBlocks)
    return "the batch has " + std::to_string(A.count()) +
           " matrices, more than the 2^31 - 1 thread blocks of one grid";
  return {};
}

/// Registers the one CUDA kernel of batch format B, one block per matrix,
/// which Auto always picks.
template <class B, Value T, Index I>
void add_only_batch_spmv(Registry<T, I>& reg, Algorithm algorithm, bool deterministic,
                         void (*run)(T, const B&, const T*, T, T*, const ExecContext&)) {
  reg.template add_batch_spmv<B>(detail::cuda_kernel(algorithm, deterministic),
                                 one_block_per_matrix<B>, run);
  reg.template set_batch_spmv_auto<B>(Backend::Cuda, [algorithm](const B&) { return algorithm; });
}

}  // namespace

template <Value T, Index I>
void register_batch_kernels(Registry<T, I>& reg) {
  using Csr = BatchCsr<T, I>;
  using detail::cuda_kernel;

  // CSR, one block per matrix (paper §3.4-3.5).
  reg.template add_batch_spmv<Csr>(cuda_kernel(Algorithm::Scalar, true), one_block_per_matrix<Csr>,
                                   batch_csr_rows<Algorithm::Scalar, T, I>);
  reg.template add_batch_spmv<Csr>(cuda_kernel(Algorithm::Vector, true), one_block_per_matrix<Csr>,
                                   batch_csr_rows<Algorithm::Vector, T, I>);
  reg.template add_batch_spmv<Csr>(cuda_kernel(Algorithm::Adaptive, true),
                                   one_block_per_matrix<Csr>,
                                   batch_csr_rows<Algorithm::Adaptive, T, I>);
  reg.template add_batch_spmv<Csr>(cuda_kernel(Algorithm::Balanced, false),
                                   one_block_per_matrix<Csr>, batch_csr_balanced<T, I>);
  // CSR, work sized to each matrix (beyond the paper). Every block has at
  // least one row, so the grid holds the batch when its rows fit one.
  reg.template add_batch_spmv<Csr>(
      cuda_kernel(Algorithm::SizedBlocks, true),
      [](const Csr& A) -> std::string {
        if (A.total_rows() > kMaxBlocks)
          return "the batch has " + std::to_string(A.total_rows()) +
                 " rows, more than the 2^31 - 1 thread blocks the schedule may need";
        return {};
      },
      batch_csr_sized<T, I>);
  reg.template set_batch_spmv_auto<Csr>(Backend::Cuda, [](const Csr& A) {
    const bool short_rows = A.nnz() <= 16 * A.total_rows();
    return short_rows ? Algorithm::Scalar : Algorithm::SizedBlocks;
  });

  // COO (§3.3) and ELL (§3.6).
  add_only_batch_spmv(reg, Algorithm::Segmented, false, batch_coo_segmented<T, I>);
  add_only_batch_spmv(reg, Algorithm::ThreadPerRow, true, batch_ell_rows<T, I>);

  // Baselines (benchmarks and tests only).
}

#define SPX_INST(T, I) template void register_batch_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::cuda
