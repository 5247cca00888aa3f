// spmm(): validation at the API boundary, then the shared pipeline
// (src/core/dispatch.hpp).
#include <cstdint>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/dispatch.hpp"
#include "core/instantiate.hpp"
#include "spx/ops.hpp"

namespace spx::detail {
namespace {

std::string_view layout_name(Layout l) {
  return l == Layout::RowMajor ? "row-major" : "column-major";
}

/// Bytes from the first to one past the last element of `v` (0 when empty);
/// throws InvalidInput when the extent overflows or runs past the end of the
/// address space.
template <class T>
std::size_t extent_bytes(const DenseView<T>& v, std::string_view name) {
  if (v.rows == 0 || v.cols == 0) return 0;
  const bool row_major = v.layout == Layout::RowMajor;
  const std::int64_t outer = row_major ? v.rows : v.cols;
  const std::int64_t inner = row_major ? v.cols : v.rows;
  const std::string what = fmt::format("extent of {}", name);
  const auto mul = checked_arithmetic<InvalidInput>('*', outer - 1, v.ld, "spmm: ", what);
  const std::int64_t elements = checked_arithmetic<InvalidInput>('+', mul, inner, "spmm: ", what);
  return operand_bytes("spmm", name, v.data, elements, sizeof(T));
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
  (void)extent_bytes(v, name);  // throws when the extent overflows
}

template <Value T, Index I>
struct SpmmCall : CallBase<T, I> {
  static constexpr std::string_view name = "spmm", noun = "matrix", kind = "";
  MatrixRef<T, I> A;
  DenseView<const T> B;
  DenseView<T> C;
  SpmmShape shape;

  Algorithm choose() const { return this->registry.choose_spmm(A, this->backend, shape); }
  const SpmmKernel<T, I>* find(Algorithm a) const {
    return this->registry.find_spmm(this->format, a, this->backend);
  }
  bool output_empty() const { return C.rows == 0 || C.cols == 0; }
  void scale_output() const {
    if (this->beta != T{1})
      this->registry.vector_ops(this->backend).scale_dense(this->beta, C, this->ctx);
  }
  std::string can_run(const SpmmKernel<T, I>& k) const { return k.can_run(A, shape); }
  void run(const SpmmKernel<T, I>& k) const { k.run(this->alpha, A, B, this->beta, C, this->ctx); }
};

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
  check_no_overlap("spmm", "B", B.data, extent_bytes(B, "B"), "C", C.data, extent_bytes(C, "C"));
  const SpmmCall<T, I> call{{format, backend, Registry<T, I>::instance(), alpha, beta,
                             nnz_of<T, I>(A), ExecContext{options.stream}},
                            A,
                            B,
                            C,
                            {B.cols, B.layout, C.layout, B.ld, C.ld,
                             reinterpret_cast<std::uintptr_t>(B.data) % 16 == 0 &&
                                 reinterpret_cast<std::uintptr_t>(C.data) % 16 == 0}};
  return dispatch(call, options.algorithm);
}

#define SPX_INST(T, I)                                                                 \
  template RunInfo spmm<T, I>(T, MatrixRef<T, I>, DenseView<const T>, T, DenseView<T>, \
                              const SpmmOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
