// DistVector: a vector partitioned like a DistMatrix's rows, with the
// operations a Krylov solver needs. Reductions (dot, norm) are one
// MPI_Allreduce; the rest is local. Host vectors compute with OpenMP, device
// vectors with the distributed layer's CUDA kernels.
#pragma once

#include <cstdint>

#include <mpi.h>

#include "spx/core/array.hpp"
#include "spx/core/view.hpp"
#include "spx/dist/matrix.hpp"

namespace spx::dist {

template <Value T>
class DistVector {
 public:
  /// This rank's `local_size` entries of a vector of `global_size` (collective:
  /// throws InvalidInput when the local sizes do not sum to global_size or
  /// the ranks disagree on it), uninitialized.
  DistVector(MPI_Comm comm, GlobalIndex global_size, std::int64_t local_size,
             Space space = Space::Host);
  /// Laid out like A's rows, in A's space (not collective).
  template <Index I>
  explicit DistVector(const DistMatrix<T, I>& A)
      : comm_(A.comm()), global_(A.global_size()), local_(A.local_rows(), A.space()) {}

  MPI_Comm comm() const noexcept { return comm_; }
  GlobalIndex global_size() const noexcept { return global_; }
  std::int64_t local_size() const noexcept { return static_cast<std::int64_t>(local_.size()); }
  Space space() const noexcept { return local_.space(); }
  Array<T>& local() noexcept { return local_; }
  const Array<T>& local() const noexcept { return local_; }
  VectorView<T> view() noexcept { return VectorView<T>(local_); }
  VectorView<const T> view() const noexcept { return VectorView<const T>(local_); }

 private:
  MPI_Comm comm_;
  GlobalIndex global_;
  Array<T> local_;
};

// Every operation throws DimensionMismatch (naming both local sizes) for
// vectors of different layouts and InvalidInput for vectors in different
// spaces. dot and norm2 are collective.

/// x = value.
template <Value T>
void fill(DistVector<T>& x, T value);
/// y = x.
template <Value T>
void copy(const DistVector<T>& x, DistVector<T>& y);
/// y = alpha*x + y.
template <Value T>
void axpy(T alpha, const DistVector<T>& x, DistVector<T>& y);
/// y = x + beta*y.
template <Value T>
void xpby(const DistVector<T>& x, T beta, DistVector<T>& y);
/// The global dot product: local sums (accumulated in double), then
/// MPI_Allreduce.
template <Value T>
T dot(const DistVector<T>& x, const DistVector<T>& y);
/// The global 2-norm.
template <Value T>
T norm2(const DistVector<T>& x);

/// y = alpha*A*x + beta*y.
template <Value T, Index I>
void apply(T alpha, const DistMatrix<T, I>& A, const DistVector<T>& x, T beta, DistVector<T>& y) {
  A.apply(alpha, x.view(), beta, y.view());
}

}  // namespace spx::dist
