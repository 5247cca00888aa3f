// Conjugate gradients on a distributed symmetric positive definite matrix:
// the worked example of the distributed layer (products with overlapped
// halo exchange, reductions through MPI_Allreduce).
#pragma once

#include "spx/dist/vector.hpp"

namespace spx::dist {

struct CgOptions {
  /// Stop when ||b - A x|| <= tolerance * ||b|| (the recurrence's residual).
  double tolerance = 1e-10;
  int max_iterations = 1000;
};

struct CgResult {
  int iterations = 0;
  double relative_residual = 0;  ///< ||r|| / ||b|| at the end
  bool converged = false;
};

/// Solves A x = b from the initial guess in x (collective). Throws
/// DimensionMismatch when x or b is not laid out like A's rows.
template <Value T, Index I>
CgResult cg(const DistMatrix<T, I>& A, const DistVector<T>& b, DistVector<T>& x,
            const CgOptions& options = {});

}  // namespace spx::dist
