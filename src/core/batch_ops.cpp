// batch_spmv(): validation at the API boundary, trivial cases, algorithm
// resolution, and the call of one registered batch kernel.
#include "spx/batch/ops.hpp"

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "core/instantiate.hpp"

namespace spx::detail {
namespace {

template <Value T, Index I>
struct BatchSpmvCall {
  static constexpr std::string_view name = "batch_spmv", noun = "batch", kind = "batched ";
  Format format;
  Backend backend;
  const Registry<T, I>& registry;
  T alpha, beta;
  BatchRef<T, I> A;
  std::int64_t nnz;
  VectorView<const T> x;
  VectorView<T> y;
  ExecContext ctx;

  Algorithm choose() const { return registry.choose_batch_spmv(A, backend); }
  const BatchSpmvKernel<T, I>* find(Algorithm a) const {
    return registry.find_batch_spmv(format, a, backend);
  }
  bool output_empty() const { return y.size == 0; }
  bool nothing_to_multiply() const { return alpha == T{0} || nnz == 0; }
  void scale_output() const {
    if (beta != T{1}) registry.vector_ops(backend).scale(beta, y.data, y.size, ctx);
  }
  std::string can_run(const BatchSpmvKernel<T, I>& k) const { return k.can_run(A); }
  void run(const BatchSpmvKernel<T, I>& k) const { k.run(alpha, A, x.data, beta, y.data, ctx); }
};

}  // namespace

template <Value T, Index I>
RunInfo batch_spmv(T alpha, BatchRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
                   const BatchOptions& options) {
  const BatchBase& base = batch_base<T, I>(A);
  const std::int64_t m = base.total_rows(), n = base.total_cols();
  const Format format = batch_format_of<T, I>(A);
  const Space space = base.space();
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "batch_spmv: the batch ({} matrices, {}) has {} columns and {} rows in total, so x must "
        "have {} entries and y {}; got x of {} and y of {}",
        base.count(), to_string(format), n, m, n, m, x.size, y.size));
  check_vector("batch_spmv", "x", x.data, x.size, x.space, space);
  check_vector("batch_spmv", "y", y.data, y.size, y.space, space);
  check_no_overlap("batch_spmv", "x", x.data, static_cast<std::size_t>(x.size) * sizeof(T), "y",
                   y.data, static_cast<std::size_t>(y.size) * sizeof(T));
  const BatchSpmvCall<T, I> call{format, backend_of(space), Registry<T, I>::instance(),
                                 alpha,  beta,              A,
                                 base.nnz(), x, y, ExecContext{options.stream}};
  return dispatch(call, options.algorithm);
}

#define SPX_INST(T, I)                                                                        \
  template RunInfo batch_spmv<T, I>(T, BatchRef<T, I>, VectorView<const T>, T, VectorView<T>, \
                                    const BatchOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
