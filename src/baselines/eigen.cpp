// The CPU baseline: Eigen's sparse matrix × dense vector product on a CSR
// matrix mapped in place (no copy). Eigen runs row-major sparse × vector
// products with OpenMP when it is compiled with OpenMP and the matrix has
// more than 20000 nonzeros; each row is summed by one thread, in order, so
// the result is the same run to run. Registered as a baseline: the benchmark
// compares SpX's CPU kernels with it, and the kernel tests check it like any
// other kernel.
#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "baselines/baselines.hpp"
#include "core/instantiate.hpp"
#include "spx/registry.hpp"

namespace spx::detail {

namespace {

template <Value T, Index I>
void spmv_eigen(T alpha, const Csr<T, I>& A, const T* x, T beta, T* y, const ExecContext&) {
  using Sparse = Eigen::SparseMatrix<T, Eigen::RowMajor, I>;
  using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
  const Eigen::Map<const Sparse> a(A.rows(), A.cols(), A.nnz(), A.row_ptr().data(),
                                   A.col_idx().data(), A.values().data());
  const Eigen::Map<const Vector> xv(x, A.cols());
  Eigen::Map<Vector> yv(y, A.rows());
  if (beta == T{0}) {
    // Eigen zeroes y before accumulating into it, so y's old contents (NaN
    // included) never reach the result.
    yv.noalias() = alpha * (a * xv);
  } else {
    if (beta != T{1}) yv *= beta;
    yv.noalias() += alpha * (a * xv);
  }
}

}  // namespace

template <Value T, Index I>
void register_eigen_baseline(Registry<T, I>& reg) {
  using CsrM = Csr<T, I>;
  const KernelInfo info{Op::Spmv,
                        Format::Csr,
                        baselines::Eigen,
                        Backend::Cpu,
                        /*deterministic=*/true,
                        /*baseline=*/true};
  reg.template add_spmv<CsrM>(info, always<CsrM>, spmv_eigen<T, I>);
}

#define SPX_INST(T, I) template void register_eigen_baseline(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
