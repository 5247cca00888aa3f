// spmv(): validation at the API boundary, trivial cases, algorithm
// resolution, and the call of one registered kernel.
#include "spx/ops.hpp"

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/instantiate.hpp"

namespace spx::detail {

template <Value T, Index I>
RunInfo spmv(T alpha, MatrixRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
             const SpmvOptions& options) {
  const std::int64_t m = rows_of<T, I>(A), n = cols_of<T, I>(A);
  const Format format = format_of<T, I>(A);
  const Space space = space_of<T, I>(A);
  const Backend backend = backend_of(space);
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "spmv: A is {}x{} ({}), so x must have {} entries and y {}; got x of {} and y of {}", m, n,
        to_string(format), n, m, x.size, y.size));
  if (x.space != space || y.space != space)
    throw InvalidInput(fmt::format("spmv: A is in {} memory but x is in {} and y in {} memory",
                                   to_string(space), to_string(x.space), to_string(y.space)));
  if ((x.size > 0 && x.data == nullptr) || (y.size > 0 && y.data == nullptr))
    throw InvalidInput("spmv: null vector pointer");

  const auto& registry = Registry<T, I>::instance();
  RunInfo info{format, options.algorithm, backend, true, false};
  if (info.algorithm == Algorithm::Auto) info.algorithm = registry.choose_spmv(A, backend);
  const SpmvKernel<T, I>* kernel = registry.find_spmv(format, info.algorithm, backend);
  if (kernel == nullptr)
    throw Unsupported(fmt::format("spmv: no {} kernel '{}' on the {} backend", to_string(format),
                                  to_string(info.algorithm), to_string(backend)));
  info.deterministic = kernel->info.deterministic;

  // Degenerate cases first: nothing to multiply, only y = beta*y.
  if (m == 0) return info;
  if (alpha == T{0} || nnz_of<T, I>(A) == 0) {
    info.trivial = true;
    info.deterministic = true;
    if (beta != T{1}) {
      const ExecContext ctx{options.stream};
      if (backend == Backend::Cpu) {
        cpu_scale(beta, y.data, m);
      } else {
        cuda_scale(beta, y.data, m, ctx);
      }
    }
    return info;
  }
  if (std::string reason = kernel->can_run(A); !reason.empty())
    throw Unsupported(fmt::format("spmv: {} kernel '{}' cannot run on this matrix: {}",
                                  to_string(format), to_string(info.algorithm), reason));
  kernel->run(alpha, A, x.data, beta, y.data, ExecContext{options.stream});
  return info;
}

#define SPX_INST(T, I)                                                                   \
  template RunInfo spmv<T, I>(T, MatrixRef<T, I>, VectorView<const T>, T, VectorView<T>, \
                              const SpmvOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
