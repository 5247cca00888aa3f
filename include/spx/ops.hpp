// The public products. Each call validates its operands, resolves the
// algorithm (Auto → a documented rule), runs one registered kernel, and
// reports which one ran.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spx/core/view.hpp"
#include "spx/matrix.hpp"
#include "spx/registry.hpp"

namespace spx {

struct SpmvOptions {
  Algorithm algorithm = Algorithm::Auto;
  /// cudaStream_t for device products (nullptr: the default stream). The call
  /// returns when the product is enqueued; synchronize the stream to wait.
  CUstream_st* stream = nullptr;
};

/// What ran.
struct RunInfo {
  Format format = Format::Csr;
  Algorithm algorithm = Algorithm::Auto;
  Backend backend = Backend::Cpu;
  bool deterministic = true;
  /// True when no kernel was needed (no rows, no nonzeros, or alpha = 0) and y
  /// was only scaled by beta.
  bool trivial = false;
};

namespace detail {
template <Value T, Index I>
RunInfo spmv(T alpha, MatrixRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
             const SpmvOptions& options);
}  // namespace detail

/// y = alpha*A*x + beta*y, BLAS semantics: beta = 0 means y is only written
/// (NaN in y does not propagate); alpha = 0 skips the product. x and y must
/// live in the matrix's space; the backend follows from it (host: OpenMP,
/// device: CUDA). Throws DimensionMismatch naming both shapes, InvalidInput
/// for a vector in the wrong space, Unsupported when the requested algorithm
/// cannot run on this matrix (with the reason).
template <SparseMatrix M, class T = typename M::value_type, class I = typename M::index_type>
RunInfo spmv(std::type_identity_t<T> alpha, const M& A,
             std::type_identity_t<VectorView<const T>> x, std::type_identity_t<T> beta,
             std::type_identity_t<VectorView<T>> y, const SpmvOptions& options = {}) {
  return detail::spmv<T, I>(alpha, MatrixRef<T, I>{&A}, x, beta, y, options);
}

/// The same for a matrix held in a variant.
template <Value T, Index I>
RunInfo spmv(std::type_identity_t<T> alpha, const Matrix<T, I>& A,
             std::type_identity_t<VectorView<const T>> x, std::type_identity_t<T> beta,
             std::type_identity_t<VectorView<T>> y, const SpmvOptions& options = {}) {
  return detail::spmv<T, I>(alpha, ref(A), x, beta, y, options);
}

}  // namespace spx
