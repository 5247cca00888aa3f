// Dense vector helpers for the dispatcher.
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"
#include "cuda/register.hpp"

namespace spx {
namespace cuda {
namespace {

template <class T>
__global__ void scale_kernel(T beta, T* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    store_scaled(y, i, beta);
}

}  // namespace
}  // namespace cuda

namespace detail {

template <Value T>
void cuda_scale(T beta, T* y, std::int64_t n, const ExecContext& ctx) {
  if (n == 0) return;
  cuda::scale_kernel<<<cuda::stride_grid(n), cuda::kBlock, 0, ctx.stream>>>(beta, y, n);
  cuda::check_launch("scale_kernel");
}

template void cuda_scale(float, float*, std::int64_t, const ExecContext&);
template void cuda_scale(double, double*, std::int64_t, const ExecContext&);

}  // namespace detail
}  // namespace spx
