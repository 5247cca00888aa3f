#include "spx/registry.hpp"

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/instantiate.hpp"

namespace spx {

template <Value T, Index I>
Registry<T, I>::Registry() {
  for (const detail::BackendModule* m : detail::builtin_backends())
    if (const auto add = m->template registrar<T, I>()) add(*this);
}

template <Value T, Index I>
Registry<T, I>& Registry<T, I>::mutable_instance() {
  static Registry registry;
  return registry;
}

template <Value T, Index I>
const Registry<T, I>& Registry<T, I>::instance() {
  return mutable_instance();
}

template <Value T, Index I>
void Registry<T, I>::extend(void (*add)(Registry&)) {
  add(mutable_instance());
}

template <Value T, Index I>
const VectorOps<T>& Registry<T, I>::vector_ops(Backend b) const {
  for (const auto& [backend, ops] : vector_ops_)
    if (backend == b) return ops;
  throw Unsupported(fmt::format("the {} backend is not part of this build", to_string(b)));
}

template <Value T, Index I>
const Conversion<T, I>* Registry<T, I>::find_conversion(Format to, Backend b) const {
  for (const auto& c : conversions_)
    if (c.to == to && c.backend == b) return &c;
  return nullptr;
}

template <Value T, Index I>
std::optional<RowLengths> Registry<T, I>::csr_row_lengths(const Csr<T, I>& A, Backend b) const {
  for (const auto& [backend, f] : row_lengths_)
    if (backend == b) return f(A);
  return std::nullopt;
}

template <Value T, Index I>
const ColumnReader<T, I>* Registry<T, I>::column_reader(Backend b) const {
  for (const auto& [backend, r] : column_readers_)
    if (backend == b) return &r;
  return nullptr;
}

namespace {

/// The kernel registered for (format, algorithm, backend), or nullptr.
template <class Kernel>
const Kernel* find_kernel(const std::vector<Kernel>& kernels, Format f, Algorithm a, Backend b) {
  for (const auto& k : kernels)
    if (k.info.format == f && k.info.algorithm == a && k.info.backend == b) return &k;
  return nullptr;
}

/// What the Auto rule of (format, backend) resolves to for `args`; throws
/// Unsupported naming the operation `what` when no rule is registered.
template <class Rule, class... Args>
Algorithm apply_auto_rule(const std::vector<Rule>& rules, std::string_view what, Format f,
                          Backend b, Args&&... args) {
  for (const auto& r : rules)
    if (r.format == f && r.backend == b) return r.rule(std::forward<Args>(args)...);
  throw Unsupported(fmt::format("no {} kernel for format {} on the {} backend", what, to_string(f),
                                to_string(b)));
}

}  // namespace

template <Value T, Index I>
const SpmvKernel<T, I>* Registry<T, I>::find_spmv(Format f, Algorithm a, Backend b) const {
  return find_kernel(spmv_, f, a, b);
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_spmv(MatrixRef<T, I> A, Backend b) const {
  return apply_auto_rule(spmv_rules_, "SpMV", format_of<T, I>(A), b, A);
}

template <Value T, Index I>
const BatchSpmvKernel<T, I>* Registry<T, I>::find_batch_spmv(Format f, Algorithm a,
                                                             Backend b) const {
  return find_kernel(batch_spmv_, f, a, b);
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_batch_spmv(BatchRef<T, I> A, Backend b) const {
  return apply_auto_rule(batch_spmv_rules_, "batched SpMV", batch_format_of<T, I>(A), b, A);
}

template <Value T, Index I>
const SpmmKernel<T, I>* Registry<T, I>::find_spmm(Format f, Algorithm a, Backend b) const {
  return find_kernel(spmm_, f, a, b);
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_spmm(MatrixRef<T, I> A, Backend b, const SpmmShape& shape) const {
  return apply_auto_rule(spmm_rules_, "SpMM", format_of<T, I>(A), b, A, shape);
}

SPX_INSTANTIATE_CLASS(Registry)

}  // namespace spx
