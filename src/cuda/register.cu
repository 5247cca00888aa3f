// The CUDA backend's entries in the kernel registry, and its Auto rules.
#include "core/backend.hpp"
#include "core/instantiate.hpp"
#include "cuda/batch_kernels.hpp"

namespace spx::detail {

template <Value T, Index I>
void register_cuda_kernels(Registry<T, I>& reg) {
  spx::cuda::register_batch_kernels(reg);  // batched SpMV (src/cuda/register_batch.cu)
}

#define SPX_INST(T, I) template void register_cuda_kernels(Registry<T, I>&);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST

}  // namespace spx::detail
