// spmv() and batch_spmv(): validation at the API boundary, then the shared
// pipeline (src/core/dispatch.hpp).
#include "spx/ops.hpp"

#include <cstdint>
#include <type_traits>

#include <fmt/format.h>

#include "core/checked.hpp"
#include "core/dispatch.hpp"
#include "core/instantiate.hpp"
#include "spx/batch/ops.hpp"

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

std::size_t operand_bytes(std::string_view op, std::string_view name, const void* data,
                          std::int64_t elements, std::size_t element_bytes) {
  const std::int64_t bytes =
      checked_arithmetic<InvalidInput>('*', elements, static_cast<std::int64_t>(element_bytes),
                                       fmt::format("{}: ", op), fmt::format("bytes of {}", name));
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  if (bytes > 0 && static_cast<std::uintptr_t>(bytes) > UINTPTR_MAX - begin)
    throw InvalidInput(fmt::format(
        "{}: {} ({} elements, {} bytes from {:#x}) runs past the end of the address space", op,
        name, elements, bytes, begin));
  return static_cast<std::size_t>(bytes);
}

namespace {

/// A dense vector operand lives in the matrix's space and has data.
void check_vector(std::string_view op, std::string_view name, const void* data, std::int64_t size,
                  Space space, Space expected) {
  if (space != expected)
    throw InvalidInput(fmt::format("{}: the matrix is in {} memory but {} is in {} memory", op,
                                   to_string(expected), name, to_string(space)));
  if (size > 0 && data == nullptr)
    throw InvalidInput(fmt::format("{}: {} ({} entries) has a null data pointer", op, name, size));
}

/// y = alpha*A*x + beta*y with A a matrix (spmv, Ref = MatrixRef) or a batch
/// (batch_spmv, Ref = BatchRef).
template <Value T, Index I, class Ref>
struct VectorCall : CallBase<T, I> {
  static constexpr bool kBatch = std::is_same_v<Ref, BatchRef<T, I>>;
  static constexpr std::string_view name = kBatch ? "batch_spmv" : "spmv";
  static constexpr std::string_view noun = kBatch ? "batch" : "matrix";
  static constexpr std::string_view kind = kBatch ? "batched " : "";
  using Kernel = VectorKernel<T, Ref>;
  Ref A;
  VectorView<const T> x;
  VectorView<T> y;

  Algorithm choose() const {
    if constexpr (kBatch)
      return this->registry.choose_batch_spmv(A, this->backend);
    else
      return this->registry.choose_spmv(A, this->backend);
  }
  const Kernel* find(Algorithm a) const {
    if constexpr (kBatch)
      return this->registry.find_batch_spmv(this->format, a, this->backend);
    else
      return this->registry.find_spmv(this->format, a, this->backend);
  }
  bool output_empty() const { return y.size == 0; }
  void scale_output() const {
    if (this->beta != T{1})
      this->registry.vector_ops(this->backend).scale(this->beta, y.data, y.size, this->ctx);
  }
  std::string can_run(const Kernel& k) const { return k.can_run(A); }
  void run(const Kernel& k) const { k.run(this->alpha, A, x.data, this->beta, y.data, this->ctx); }
};

/// The checks of x and y that spmv and batch_spmv share (their lengths are
/// checked by the caller, whose message names the shapes), then the pipeline.
template <class Call>
RunInfo dispatch_vector(const Call& call, Space space, Algorithm requested) {
  check_vector(Call::name, "x", call.x.data, call.x.size, call.x.space, space);
  check_vector(Call::name, "y", call.y.data, call.y.size, call.y.space, space);
  const auto bytes = [](std::string_view name, const auto& v) {
    return operand_bytes(Call::name, name, v.data, v.size, sizeof(*v.data));
  };
  check_no_overlap(Call::name, "x", call.x.data, bytes("x", call.x), "y", call.y.data,
                   bytes("y", call.y));
  return dispatch(call, requested);
}

}  // namespace

template <Value T, Index I>
RunInfo spmv(T alpha, MatrixRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
             const SpmvOptions& options) {
  const std::int64_t m = rows_of<T, I>(A), n = cols_of<T, I>(A);
  const Format format = format_of<T, I>(A);
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "spmv: A is {}x{} ({}), so x must have {} entries and y {}; got x of {} and y of {}", m, n,
        to_string(format), n, m, x.size, y.size));
  const Space space = space_of<T, I>(A);
  const VectorCall<T, I, MatrixRef<T, I>> call{
      {format, backend_of(space), Registry<T, I>::instance(), alpha, beta, nnz_of<T, I>(A),
       ExecContext{options.stream}},
      A,
      x,
      y};
  return dispatch_vector(call, space, options.algorithm);
}

template <Value T, Index I>
RunInfo batch_spmv(T alpha, BatchRef<T, I> A, VectorView<const T> x, T beta, VectorView<T> y,
                   const BatchOptions& options) {
  const BatchBase& base = batch_base<T, I>(A);
  const std::int64_t m = base.total_rows(), n = base.total_cols();
  const Format format = batch_format_of<T, I>(A);
  if (x.size != n || y.size != m)
    throw DimensionMismatch(fmt::format(
        "batch_spmv: the batch ({} matrices, {}) has {} columns and {} rows in total, so x must "
        "have {} entries and y {}; got x of {} and y of {}",
        base.count(), to_string(format), n, m, n, m, x.size, y.size));
  const VectorCall<T, I, BatchRef<T, I>> call{
      {format, backend_of(base.space()), Registry<T, I>::instance(), alpha, beta, base.nnz(),
       ExecContext{options.stream}},
      A,
      x,
      y};
  return dispatch_vector(call, base.space(), options.algorithm);
}

#define SPX_INST(T, I)                                                                        \
  template RunInfo spmv<T, I>(T, MatrixRef<T, I>, VectorView<const T>, T, VectorView<T>,      \
                              const SpmvOptions&);                                            \
  template RunInfo batch_spmv<T, I>(T, BatchRef<T, I>, VectorView<const T>, T, VectorView<T>, \
                                    const BatchOptions&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
