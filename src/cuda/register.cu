// The CUDA backend's entries in the kernel registry, and its Auto rules.
#include "core/backend.hpp"
#include "core/instantiate.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>&) {}

#define SPX_INST(T, I) template void register_cuda_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
