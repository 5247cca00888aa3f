// The CUDA backend's entries in the kernel registry, and its Auto rules.
#include "core/backend.hpp"
#include "core/instantiate.hpp"
#include "core/spmm_backend.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& reg) {
  register_cuda_spmm_kernels(reg);
}

#define SPX_INST(T, I) template void register_cuda_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
