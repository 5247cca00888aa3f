// Conjugate gradients over the distributed matrix and vectors: each
// iteration is one product (halo exchange overlapped with the local block)
// and two all-reductions.
#include "spx/dist/cg.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/instantiate.hpp"

namespace spx::dist {

template <Value T, Index I>
CgResult cg(const DistMatrix<T, I>& A, const DistVector<T>& b, DistVector<T>& x,
            const CgOptions& options) {
  if (b.local_size() != A.local_rows() || x.local_size() != A.local_rows())
    throw DimensionMismatch(
        fmt::format("cg: b has {} local entries and x {} on rank {}, which "
                    "owns {} rows",
                    b.local_size(), x.local_size(), A.rank(), A.local_rows()));
  DistVector<T> r(A), p(A), q(A);
  // r = b - A x, p = r
  copy(b, r);
  apply(T{-1}, A, x, T{1}, r);
  copy(r, p);
  const double bnorm = norm2(b);
  const double scale = bnorm > 0 ? bnorm : 1.0;
  double rr = dot(r, r);
  CgResult result;
  result.relative_residual = std::sqrt(rr) / scale;
  while (result.relative_residual > options.tolerance &&
         result.iterations < options.max_iterations) {
    apply(T{1}, A, p, T{0}, q);
    const double pq = dot(p, q);
    if (!(pq > 0)) break;  // A not positive definite along p (or NaN)
    const double alpha = rr / pq;
    axpy(static_cast<T>(alpha), p, x);
    axpy(static_cast<T>(-alpha), q, r);
    const double rr_next = dot(r, r);
    xpby(r, static_cast<T>(rr_next / rr), p);
    rr = rr_next;
    ++result.iterations;
    result.relative_residual = std::sqrt(rr) / scale;
  }
  result.converged = result.relative_residual <= options.tolerance;
  return result;
}

#define SPX_INST(T, I)                                                                \
  template CgResult cg(const DistMatrix<T, I>&, const DistVector<T>&, DistVector<T>&, \
                       const CgOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::dist
