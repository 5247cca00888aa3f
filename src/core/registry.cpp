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
const SpmvKernel<T, I>* Registry<T, I>::find_spmv(Format f, Algorithm a, Backend b) const {
  for (const auto& k : spmv_)
    if (k.info.format == f && k.info.algorithm == a && k.info.backend == b) return &k;
  return nullptr;
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_spmv(MatrixRef<T, I> A, Backend b) const {
  const Format f = format_of<T, I>(A);
  for (const auto& r : auto_rules_)
    if (r.format == f && r.backend == b) return r.rule(A);
  throw Unsupported(
      fmt::format("no SpMV kernel for format {} on the {} backend", to_string(f), to_string(b)));
}

template <Value T, Index I>
const BatchSpmvKernel<T, I>* Registry<T, I>::find_batch_spmv(Format f, Algorithm a,
                                                             Backend b) const {
  for (const auto& k : batch_spmv_)
    if (k.info.format == f && k.info.algorithm == a && k.info.backend == b) return &k;
  return nullptr;
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_batch_spmv(BatchRef<T, I> A, Backend b) const {
  const Format f = batch_format_of<T, I>(A);
  for (const auto& r : batch_auto_rules_)
    if (r.format == f && r.backend == b) return r.rule(A);
  throw Unsupported(fmt::format("no batched SpMV kernel for format {} on the {} backend",
                                to_string(f), to_string(b)));
}

template <Value T, Index I>
const SpmmKernel<T, I>* Registry<T, I>::find_spmm(Format f, Algorithm a, Backend b) const {
  for (const auto& k : spmm_)
    if (k.info.format == f && k.info.algorithm == a && k.info.backend == b) return &k;
  return nullptr;
}

template <Value T, Index I>
Algorithm Registry<T, I>::choose_spmm(MatrixRef<T, I> A, Backend b, const SpmmShape& shape) const {
  const Format f = format_of<T, I>(A);
  for (const auto& r : spmm_auto_rules_)
    if (r.format == f && r.backend == b) return r.rule(A, shape);
  throw Unsupported(
      fmt::format("no SpMM kernel for format {} on the {} backend", to_string(f), to_string(b)));
}

SPX_INSTANTIATE_CLASS(Registry)

}  // namespace spx
