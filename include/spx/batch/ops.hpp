// Batched SpMV: one call multiplies every matrix of a batch by its own vector.
#pragma once

#include <cstdint>
#include <type_traits>

#include "spx/batch/batch.hpp"
#include "spx/core/view.hpp"
#include "spx/ops.hpp"
#include "spx/registry.hpp"

namespace spx {

using BatchOptions = ProductOptions;

namespace detail {
template <Value T, Index I>
RunInfo batch_spmv(T alpha, BatchRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
                   const BatchOptions& options);
}  // namespace detail

/// y_i = alpha*A_i*x_i + beta*y_i for every matrix i of the batch. x is the
/// concatenation of the x_i (A.total_cols() entries, matrix i's at
/// A.col_offsets()[i]), y the concatenation of the y_i (A.total_rows()
/// entries, at A.row_offsets()[i]). BLAS semantics as for spmv: beta = 0 means
/// y is only written; alpha = 0 skips the product. x and y must live in the
/// batch's space; host batches run on the CPU (OpenMP over matrices), device
/// batches on CUDA. Throws DimensionMismatch naming the expected lengths,
/// InvalidInput for a vector in the wrong space, Unsupported when the
/// requested algorithm does not exist or cannot run on this batch (with the
/// reason).
template <BatchMatrix B, class T = typename B::value_type, class I = typename B::index_type>
RunInfo batch_spmv(std::type_identity_t<T> alpha, const B& A,
                   std::type_identity_t<VectorView<const T>> x, std::type_identity_t<T> beta,
                   std::type_identity_t<VectorView<T>> y, const BatchOptions& options = {}) {
  return detail::batch_spmv<T, I>(alpha, BatchRef<T, I>{&A}, x, beta, y, options);
}

/// The same for a batch held in a variant.
template <Value T, Index I>
RunInfo batch_spmv(std::type_identity_t<T> alpha, const Batch<T, I>& A,
                   std::type_identity_t<VectorView<const T>> x, std::type_identity_t<T> beta,
                   std::type_identity_t<VectorView<T>> y, const BatchOptions& options = {}) {
  return detail::batch_spmv<T, I>(alpha, batch_ref(A), x, beta, y, options);
}

}  // namespace spx
