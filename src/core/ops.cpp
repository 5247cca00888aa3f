// spmv(): validation at the API boundary, then the shared pipeline
// (src/core/dispatch.hpp).
#include "spx/ops.hpp"

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "core/instantiate.hpp"

namespace spx::detail {

void check_no_overlap(std::string_view op, std::string_view a_name, const void* a,
                      std::size_t a_bytes, std::string_view b_name, const void* b,
                      std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a), b0 = reinterpret_cast<std::uintptr_t>(b);
  if (a0 < b0 + b_bytes && b0 < a0 + a_bytes)
    throw InvalidInput(fmt::format(
        "{}: {} [{:#x}, {:#x}) and {} [{:#x}, {:#x}) overlap in memory; the output must not "
        "share memory with an input",
        op, a_name, a0, a0 + a_bytes, b_name, b0, b0 + b_bytes));
}

void check_vector(std::string_view op, std::string_view name, const void* data, std::int64_t size,
                  Space space, Space expected) {
  if (space != expected)
    throw InvalidInput(fmt::format("{}: the matrix is in {} memory but {} is in {} memory", op,
                                   to_string(expected), name, to_string(space)));
  if (size > 0 && data == nullptr)
    throw InvalidInput(fmt::format("{}: {} ({} entries) has a null data pointer", op, name, size));
}

namespace {

template <Value T, Index I>
struct SpmvCall {
  static constexpr std::string_view name = "spmv", noun = "matrix", kind = "";
  Format format;
  Backend backend;
  const Registry<T, I>& registry;
  T alpha, beta;
  MatrixRef<T, I> A;
  VectorView<const T> x;
  VectorView<T> y;
  ExecContext ctx;

  Algorithm choose() const { return registry.choose_spmv(A, backend); }
  const SpmvKernel<T, I>* find(Algorithm a) const { return registry.find_spmv(format, a, backend); }
  bool output_empty() const { return y.size == 0; }
  bool nothing_to_multiply() const { return alpha == T{0} || nnz_of<T, I>(A) == 0; }
  void scale_output() const {
    if (beta != T{1}) registry.vector_ops(backend).scale(beta, y.data, y.size, ctx);
  }
  std::string can_run(const SpmvKernel<T, I>& k) const { return k.can_run(A); }
  void run(const SpmvKernel<T, I>& k) const { k.run(alpha, A, x.data, beta, y.data, ctx); }
};

}  // namespace

template <Value T, Index I>
RunInfo spmv(T alpha, MatrixRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
             const SpmvOptions& options) {
  const std::int64_t m = rows_of<T, I>(A), n = cols_of<T, I>(A);
  const Format format = format_of<T, I>(A);
  const Space space = space_of<T, I>(A);
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "spmv: A is {}x{} ({}), so x must have {} entries and y {}; got x of {} and y of {}", m, n,
        to_string(format), n, m, x.size, y.size));
  check_vector("spmv", "x", x.data, x.size, x.space, space);
  check_vector("spmv", "y", y.data, y.size, y.space, space);
  check_no_overlap("spmv", "x", x.data, static_cast<std::size_t>(x.size) * sizeof(T), "y", y.data,
                   static_cast<std::size_t>(y.size) * sizeof(T));
  const SpmvCall<T, I> call{format, backend_of(space), Registry<T, I>::instance(),
                            alpha,  beta,              A,
                            x,      y,                 ExecContext{options.stream}};
  return dispatch(call, options.algorithm);
}

#define SPX_INST(T, I)                                                                   \
  template RunInfo spmv<T, I>(T, MatrixRef<T, I>, VectorView<const T>, T, VectorView<T>, \
                              const SpmvOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
