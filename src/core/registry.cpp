#include "spx/registry.hpp"

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/instantiate.hpp"

namespace spx {

template <Value T, Index I>
Registry<T, I>::Registry() {
  detail::register_cpu_kernels(*this);
  if constexpr (SPX_HAVE_CUDA) detail::register_cuda_kernels(*this);
}

template <Value T, Index I>
const Registry<T, I>& Registry<T, I>::instance() {
  static const Registry registry;
  return registry;
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

#if !SPX_HAVE_CUDA
namespace detail {
template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>&) {}
template <Value T>
void cuda_scale(T, T*, std::int64_t, const ExecContext&) {
  throw Unsupported("device vector, but SpX was built without the CUDA backend");
}
#define SPX_INST(T, I) template void register_cuda_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST
template void cuda_scale(float, float*, std::int64_t, const ExecContext&);
template void cuda_scale(double, double*, std::int64_t, const ExecContext&);
}  // namespace detail
#endif

}  // namespace spx
