// Device kernels of the distributed layer: gathering the halo values other
// ranks need (pack), and the vector operations of DistVector. 256 threads
// per block; every launch and runtime call checked.
#include <cuda_runtime.h>

#include <vector>

#include "core/instantiate.hpp"
#include "cuda/check.hpp"
#include "dist/device.hpp"

namespace spx::dist::detail {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t work) {
  const std::int64_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 16 ? (b > 0 ? b : 1) : 65535 * 16);
}

/// buf[k*n + j] = X(idx[k], j), grid-stride over the count*n outputs.
template <class T, class I>
__global__ void pack_kernel(const T* __restrict__ x, std::int64_t ld, bool row_major,
                            std::int64_t n, const I* __restrict__ idx, std::int64_t count,
                            T* __restrict__ buf) {
  const std::int64_t total = count * n;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = t / n, j = t % n;
    const auto i = static_cast<std::int64_t>(idx[k]);
    buf[t] = row_major ? x[i * ld + j] : x[i + j * ld];
  }
}

/// Y(rows[k], j) += buf[k*n + j], grid-stride over the count*n values.
template <class T, class I>
__global__ void scatter_add_kernel(const T* __restrict__ buf, std::int64_t n,
                                   const I* __restrict__ rows, std::int64_t count,
                                   T* __restrict__ y, std::int64_t ld, bool row_major) {
  const std::int64_t total = count * n;
  for (std::int64_t t = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = t / n, j = t % n;
    const auto i = static_cast<std::int64_t>(rows[k]);
    (row_major ? y[i * ld + j] : y[i + j * ld]) += buf[t];
  }
}

template <class T>
__global__ void fill_kernel(T* x, std::int64_t n, T value) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    x[i] = value;
}

template <class T>
__global__ void axpy_kernel(std::int64_t n, T alpha, const T* __restrict__ x, T* __restrict__ y) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] += alpha * x[i];
}

template <class T>
__global__ void xpby_kernel(std::int64_t n, const T* __restrict__ x, T beta, T* __restrict__ y) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = x[i] + beta * y[i];
}

/// One partial sum (in double) per block: grid-stride products, then a
/// shared-memory tree over the block.
template <class T>
__global__ void dot_kernel(std::int64_t n, const T* __restrict__ x, const T* __restrict__ y,
                           double* __restrict__ partial) {
  __shared__ double s[kThreads];
  double sum = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    sum += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

}  // namespace

template <Value T, Index I>
void device_pack(const T* x, std::int64_t ld, bool row_major, std::int64_t n, const I* idx,
                 std::int64_t count, T* buf, CUstream_st* stream) {
  if (count * n == 0) return;
  pack_kernel<<<blocks_for(count * n), kThreads, 0, stream>>>(x, ld, row_major, n, idx, count, buf);
  cuda::check_launch("dist pack_kernel");
}

template <Value T, Index I>
void device_scatter_add(const T* buf, std::int64_t n, const I* rows, std::int64_t count, T* y,
                        std::int64_t ld, bool row_major, CUstream_st* stream) {
  if (count * n == 0) return;
  scatter_add_kernel<<<blocks_for(count * n), kThreads, 0, stream>>>(buf, n, rows, count, y, ld,
                                                                     row_major);
  cuda::check_launch("dist scatter_add_kernel");
}

template <Value T>
void device_fill(T* x, std::int64_t n, T value) {
  if (n == 0) return;
  fill_kernel<<<blocks_for(n), kThreads>>>(x, n, value);
  cuda::check_launch("dist fill_kernel");
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <Value T>
void device_axpy(std::int64_t n, T alpha, const T* x, T* y) {
  if (n == 0) return;
  axpy_kernel<<<blocks_for(n), kThreads>>>(n, alpha, x, y);
  cuda::check_launch("dist axpy_kernel");
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <Value T>
void device_xpby(std::int64_t n, const T* x, T beta, T* y) {
  if (n == 0) return;
  xpby_kernel<<<blocks_for(n), kThreads>>>(n, x, beta, y);
  cuda::check_launch("dist xpby_kernel");
  cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

template <Value T>
double device_dot(std::int64_t n, const T* x, const T* y) {
  if (n == 0) return 0;
  const unsigned blocks = blocks_for(n) < 1024 ? blocks_for(n) : 1024;
  double* partial = nullptr;
  cuda::check(cudaMalloc(&partial, blocks * sizeof(double)), "cudaMalloc");
  std::vector<double> host(blocks);
  try {
    dot_kernel<<<blocks, kThreads>>>(n, x, y, partial);
    cuda::check_launch("dist dot_kernel");
    cuda::check(cudaMemcpy(host.data(), partial, blocks * sizeof(double), cudaMemcpyDeviceToHost),
                "cudaMemcpy");
  } catch (...) {
    cudaFree(partial);
    throw;
  }
  cuda::check(cudaFree(partial), "cudaFree");
  double sum = 0;
  for (double v : host)
    sum += v;
  return sum;
}

void device_sync(CUstream_st* stream) {
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

void device_copy_sync(void* dst, const void* src, std::size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return;
  cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
  cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

SPX_FOR_EACH_TYPE_PAIR(SPX_DIST_INSTANTIATE_PACK)
SPX_DIST_INSTANTIATE_VECTOR(float)
SPX_DIST_INSTANTIATE_VECTOR(double)

}  // namespace spx::dist::detail
