// Dense vector helpers for the dispatcher.
#include <cuda_runtime.h>

#include "cuda/register.hpp"
#include "cuda/check.hpp"

namespace spx {
namespace cuda {
namespace {

template <class T>
__global__ void scale_kernel(T beta, T* __restrict__ y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    y[i] = beta == T{0} ? T{0} : beta * y[i];
}

}  // namespace
}  // namespace cuda

namespace detail {

template <Value T>
void cuda_scale(T beta, T* y, std::int64_t n, const ExecContext& ctx) {
  if (n == 0) return;
  constexpr int kThreads = 256;
  const auto blocks =
      static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 65535));
  cuda::scale_kernel<<<blocks, kThreads, 0, ctx.stream>>>(beta, y, n);
  cuda::check_launch("scale_kernel");
}

template void cuda_scale(float, float*, std::int64_t, const ExecContext&);
template void cuda_scale(double, double*, std::int64_t, const ExecContext&);

}  // namespace detail
}  // namespace spx
