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

/// What a product (spmv, spmm, batch_spmv) may be told.
struct ProductOptions {
  /// Auto resolves by the rule registered for the format and backend; the
  /// algorithm that ran is reported in RunInfo.
  Algorithm algorithm = Algorithm::Auto;
  /// cudaStream_t for device products (nullptr: the default stream). The call
  /// returns when the product is enqueued; synchronize the stream to wait.
  CUstream_st* stream = nullptr;
};
using SpmvOptions = ProductOptions;
using SpmmOptions = ProductOptions;

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
RunInfo spmv(std::type_identity_t<T> alpha, const M& A, std::type_identity_t<VectorView<const T>> x,
             std::type_identity_t<T> beta, std::type_identity_t<VectorView<T>> y,
             const SpmvOptions& options = {}) {
  return detail::spmv<T, I>(alpha, MatrixRef<T, I>{&A}, x, beta, y, options);
}

/// The same for a matrix held in a variant.
template <Value T, Index I>
RunInfo spmv(std::type_identity_t<T> alpha, const Matrix<T, I>& A,
             std::type_identity_t<VectorView<const T>> x, std::type_identity_t<T> beta,
             std::type_identity_t<VectorView<T>> y, const SpmvOptions& options = {}) {
  return detail::spmv<T, I>(alpha, ref(A), x, beta, y, options);
}

// ---- SpMM -------------------------------------------------------------------

/// A read-only view of the same dense matrix.
template <class T>
DenseView<const T> const_view(DenseView<T> v) {
  return {v.data, v.rows, v.cols, v.ld, v.layout, v.space};
}

namespace detail {
template <Value T, Index I>
RunInfo spmm(T alpha, MatrixRef<T, I> A, DenseView<const T> B, T beta, DenseView<T> C,
             const SpmmOptions& options);
}  // namespace detail

/// C = alpha*A*B + beta*C with A sparse (m×k), B dense (k×n), C dense (m×n).
/// B and C may each be row-major (element (i, j) at data[i*ld + j]; the fast
/// path of the GPU kernels) or column-major (data[i + j*ld]), with ld at
/// least cols (row-major) or rows (column-major). BLAS semantics as for
/// spmv: beta = 0 means C is only written (NaN in C does not propagate);
/// alpha = 0 skips the product. B and C must live in the matrix's space and
/// must not overlap. Throws DimensionMismatch naming the three shapes,
/// InvalidInput for a bad leading dimension, a null pointer, overlapping
/// operands or an operand in the wrong space, Unsupported when the requested
/// algorithm cannot run on this matrix and shape (with the reason).
template <SparseMatrix M, class T = typename M::value_type, class I = typename M::index_type>
RunInfo spmm(std::type_identity_t<T> alpha, const M& A, std::type_identity_t<DenseView<const T>> B,
             std::type_identity_t<T> beta, std::type_identity_t<DenseView<T>> C,
             const SpmmOptions& options = {}) {
  return detail::spmm<T, I>(alpha, MatrixRef<T, I>{&A}, B, beta, C, options);
}

/// The same for a matrix held in a variant.
template <Value T, Index I>
RunInfo spmm(std::type_identity_t<T> alpha, const Matrix<T, I>& A,
             std::type_identity_t<DenseView<const T>> B, std::type_identity_t<T> beta,
             std::type_identity_t<DenseView<T>> C, const SpmmOptions& options = {}) {
  return detail::spmm<T, I>(alpha, ref(A), B, beta, C, options);
}

/// What one SpMM moves and computes, for benchmark records: the matrix's own
/// arrays read once, B (k×n) read once, C (m×n) written once and read too
/// when beta != 0; two flops per nonzero and column of B.
struct SpmmWork {
  std::int64_t bytes = 0;
  std::int64_t flops = 0;
};

template <Value T, Index I>
SpmmWork spmm_work(MatrixRef<T, I> A, std::int64_t n, bool beta_nonzero) {
  const auto dense = static_cast<std::int64_t>(sizeof(T)) * n;
  const std::int64_t c_bytes = rows_of<T, I>(A) * dense;
  return {static_cast<std::int64_t>(bytes_of<T, I>(A)) + cols_of<T, I>(A) * dense + c_bytes +
              (beta_nonzero ? c_bytes : 0),
          2 * nnz_of<T, I>(A) * n};
}

}  // namespace spx
