// spmm(): validation at the API boundary, trivial cases, algorithm
// resolution, and the call of one registered kernel.
#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_backend.hpp"
#include "spx/ops.hpp"

namespace spx::detail {
namespace {

std::string_view layout_name(Layout l) {
  return l == Layout::RowMajor ? "row-major" : "column-major";
}

/// Elements from the first to one past the last element of `v` (0 when empty).
template <class T>
std::int64_t extent(const DenseView<T>& v, std::string_view name) {
  if (v.rows == 0 || v.cols == 0) return 0;
  const bool row_major = v.layout == Layout::RowMajor;
  const std::int64_t outer = row_major ? v.rows : v.cols;
  const std::int64_t inner = row_major ? v.cols : v.rows;
  return checked_mul(outer - 1, v.ld, fmt::format("extent of {}", name)) + inner;
}

/// Shape, leading dimension, space and pointer of one dense operand.
template <class T>
void check_dense(const DenseView<T>& v, std::string_view name, Space space) {
  if (v.rows < 0 || v.cols < 0)
    throw InvalidInput(fmt::format("spmm: {} has a negative shape {}x{}", name, v.rows, v.cols));
  const std::int64_t min_ld = v.layout == Layout::RowMajor ? v.cols : v.rows;
  if (v.ld < min_ld)
    throw InvalidInput(fmt::format(
        "spmm: {} is {}x{} {}, so its leading dimension must be at least {}; got ld = {}", name,
        v.rows, v.cols, layout_name(v.layout), min_ld, v.ld));
  if (v.space != space)
    throw InvalidInput(fmt::format("spmm: A is in {} memory but {} is in {} memory",
                                   to_string(space), name, to_string(v.space)));
  if (v.rows > 0 && v.cols > 0 && v.data == nullptr)
    throw InvalidInput(
        fmt::format("spmm: {} ({}x{}) has a null data pointer", name, v.rows, v.cols));
  (void)extent(v, name);  // throws when the extent overflows
}

}  // namespace

template <Value T, Index I>
RunInfo spmm(T alpha, MatrixRef<T, I> A, DenseView<const T> B, T beta, DenseView<T> C,
             const SpmmOptions& options) {
  const std::int64_t m = rows_of<T, I>(A), k = cols_of<T, I>(A);
  const Format format = format_of<T, I>(A);
  const Space space = space_of<T, I>(A);
  const Backend backend = backend_of(space);

  // Validation: shapes, leading dimensions, spaces, pointers, aliasing.
  if (B.rows != k || C.rows != m || C.cols != B.cols)
    throw DimensionMismatch(fmt::format(
        "spmm: A is {}x{} ({}), B is {}x{} and C is {}x{}; B must have {} rows and C must be "
        "{}x(columns of B)",
        m, k, to_string(format), B.rows, B.cols, C.rows, C.cols, k, m));
  check_dense(B, "B", space);
  check_dense(C, "C", space);
  const std::int64_t b_extent = extent(B, "B"), c_extent = extent(C, "C");
  if (b_extent > 0 && c_extent > 0) {
    const auto* b0 = reinterpret_cast<const char*>(B.data);
    const auto* c0 = reinterpret_cast<const char*>(C.data);
    const auto* b1 = b0 + b_extent * static_cast<std::int64_t>(sizeof(T));
    const auto* c1 = c0 + c_extent * static_cast<std::int64_t>(sizeof(T));
    if (b0 < c1 && c0 < b1) throw InvalidInput("spmm: B and C overlap in memory");
  }
  const std::int64_t n = B.cols;
  const SpmmShape shape{n, B.layout, C.layout, B.ld, C.ld};

  // The kernel the request resolves to (also for trivial cases, so that a bad
  // request fails the same way whatever the data).
  const auto& registry = Registry<T, I>::instance();
  RunInfo info{format, options.algorithm, backend, true, false};
  if (info.algorithm == Algorithm::Auto) info.algorithm = registry.choose_spmm(A, backend, shape);
  const SpmmKernel<T, I>* kernel = registry.find_spmm(format, info.algorithm, backend);
  if (kernel == nullptr)
    throw Unsupported(fmt::format("spmm: no {} kernel '{}' on the {} backend", to_string(format),
                                  to_string(info.algorithm), to_string(backend)));
  info.deterministic = kernel->info.deterministic;

  // Degenerate cases first: C empty, or nothing to multiply (C = beta*C).
  if (m == 0 || n == 0) {
    info.trivial = true;
    info.deterministic = true;
    return info;
  }
  if (alpha == T{0} || nnz_of<T, I>(A) == 0) {
    info.trivial = true;
    info.deterministic = true;
    if (beta != T{1}) {
      if (backend == Backend::Cpu) {
        cpu_scale_dense(beta, C);
      } else {
        cuda_scale_dense(beta, C, ExecContext{options.stream});
      }
    }
    return info;
  }
  if (std::string reason = kernel->can_run(A, shape); !reason.empty())
    throw Unsupported(fmt::format("spmm: {} kernel '{}' cannot run on this matrix: {}",
                                  to_string(format), to_string(info.algorithm), reason));
  kernel->run(alpha, A, B, beta, C, ExecContext{options.stream});
  return info;
}

#define SPX_INST(T, I)                                                                 \
  template RunInfo spmm<T, I>(T, MatrixRef<T, I>, DenseView<const T>, T, DenseView<T>, \
                              const SpmmOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

#if !SPX_HAVE_CUDA
template <Value T>
void cuda_scale_dense(T, DenseView<T>, const ExecContext&) {
  throw Unsupported("device matrix, but SpX was built without the CUDA backend");
}
template void cuda_scale_dense(float, DenseView<float>, const ExecContext&);
template void cuda_scale_dense(double, DenseView<double>, const ExecContext&);
#endif

}  // namespace spx::detail
