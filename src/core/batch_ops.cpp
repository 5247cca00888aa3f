// batch_spmv(): validation at the API boundary, trivial cases, algorithm
// resolution, and the call of one registered batch kernel.
#include "spx/batch/ops.hpp"

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/instantiate.hpp"

namespace spx::detail {

template <Value T, Index I>
RunInfo batch_spmv(T alpha, BatchRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
                   const BatchOptions& options) {
  const BatchBase& base = batch_base<T, I>(A);
  const std::int64_t m = base.total_rows(), n = base.total_cols();
  const Format format = batch_format_of<T, I>(A);
  const Space space = base.space();
  const Backend backend = backend_of(space);
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "batch_spmv: the batch ({} matrices, {}) has {} columns and {} rows in total, so x must "
        "have {} entries and y {}; got x of {} and y of {}",
        base.count(), to_string(format), n, m, n, m, x.size, y.size));
  if (x.space != space || y.space != space)
    throw InvalidInput(
        fmt::format("batch_spmv: the batch is in {} memory but x is in {} and y in {} memory",
                    to_string(space), to_string(x.space), to_string(y.space)));
  if ((x.size > 0 && x.data == nullptr) || (y.size > 0 && y.data == nullptr))
    throw InvalidInput("batch_spmv: null vector pointer");

  const auto& registry = Registry<T, I>::instance();
  RunInfo info{format, options.algorithm, backend, true, false};
  if (info.algorithm == Algorithm::Auto) info.algorithm = registry.choose_batch_spmv(A, backend);
  const BatchSpmvKernel<T, I>* kernel = registry.find_batch_spmv(format, info.algorithm, backend);
  if (kernel == nullptr)
    throw Unsupported(fmt::format("batch_spmv: no batched {} kernel '{}' on the {} backend",
                                  to_string(format), to_string(info.algorithm),
                                  to_string(backend)));
  info.deterministic = kernel->info.deterministic;

  // Degenerate cases first: nothing to multiply, only y = beta*y.
  if (m == 0) return info;
  if (alpha == T{0} || base.nnz() == 0) {
    info.trivial = true;
    info.deterministic = true;
    if (beta != T{1}) {
      if (backend == Backend::Cpu) {
        cpu_scale(beta, y.data, m);
      } else {
        cuda_scale(beta, y.data, m, ExecContext{options.stream});
      }
    }
    return info;
  }
  if (std::string reason = kernel->can_run(A); !reason.empty())
    throw Unsupported(fmt::format("batch_spmv: batched {} kernel '{}' cannot run on this batch: {}",
                                  to_string(format), to_string(info.algorithm), reason));
  kernel->run(alpha, A, x.data, beta, y.data, ExecContext{options.stream});
  return info;
}

#define SPX_INST(T, I)                                                                        \
  template RunInfo batch_spmv<T, I>(T, BatchRef<T, I>, VectorView<const T>, T, VectorView<T>, \
                                    const BatchOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
