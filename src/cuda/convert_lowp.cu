// The device passes of SELL-LP's and DIA-LP's conversions (lowp.hpp): the
// range check (the first value that overflows the storage type), DIA-LP's
// test for nonzeros that round to zero, and the rounding of the values to it, bit for bit as the
// host's lowp::narrow: double → float with __double2float_rn (round to nearest even, as the host's
// cast in the default rounding mode), float → bfloat16 with the same integer rounding as
// lowp::to_bf16.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/launch.hpp"
#include "cuda/primitives.cuh"

namespace spx::cuda::conv {
namespace {

__device__ __forceinline__ bool overflows(double v) {
  return isfinite(v) && isinf(__double2float_rn(v));
}
__device__ __forceinline__ bool overflows(float v) {
  return isfinite(v) && (round_value(v) & 0x7fffu) == 0x7f80u;
}

/// A nonzero (NaN included) whose rounding is a (signed) zero.
__device__ __forceinline__ bool flushes(double v) {
  return v != 0.0 && __double2float_rn(v) == 0.0f;
}
__device__ __forceinline__ bool flushes(float v) {
  return v != 0.0f && (round_value(v) & 0x7fffu) == 0u;
}

struct Overflows {
  template <class T>
  __device__ bool operator()(T v) const {
    return overflows(v);
  }
};
struct Flushes {
  template <class T>
  __device__ bool operator()(T v) const {
    return flushes(v);
  }
};

template <class T, class Pred>
__global__ void __launch_bounds__(kBlock)
    first_kernel(const T* __restrict__ val, std::int64_t n, Pred pred,
                 unsigned long long* __restrict__ first) {
  const std::int64_t stride = std::int64_t{gridDim.x} * kBlock;
  for (std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; k < n; k += stride)
    if (pred(val[k])) atomicMin(first, static_cast<unsigned long long>(k));
}

template <class T, class S>
__global__ void __launch_bounds__(kBlock)
    round_kernel(const T* __restrict__ in, std::int64_t n, S* __restrict__ out) {
  const std::int64_t k = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (k < n) out[k] = round_value(in[k]);
}

template <class T, class Pred>
std::int64_t first_of(const T* val, std::int64_t n, Pred pred) {
  if (n <= 0) return -1;
  StreamScratch out(sizeof(unsigned long long), kStream);
  check(cudaMemsetAsync(out.as<void>(), 0xff, sizeof(unsigned long long), kStream),
        "cudaMemsetAsync");
  const unsigned grid = std::min<unsigned>(grid_size(n, kBlock, "first_overflow"),
                                           static_cast<unsigned>(sm_count()) * 8u);
  first_kernel<<<grid, kBlock, 0, kStream>>>(val, n, pred, out.as<unsigned long long>());
  check_launch("first_overflow");
  const std::uint64_t first = read_back(out.as<std::uint64_t>());
  return first == ~std::uint64_t{0} ? -1 : static_cast<std::int64_t>(first);
}

template <class T, class S>
void round_all(const T* in, std::int64_t n, S* out) {
  if (n <= 0) return;
  round_kernel<<<grid_size(n, kBlock, "round_values"), kBlock, 0, kStream>>>(in, n, out);
  check_launch("round_values");
}

}  // namespace

std::int64_t first_overflow(const double* val, std::int64_t n) {
  return first_of(val, n, Overflows{});
}
std::int64_t first_overflow(const float* val, std::int64_t n) {
  return first_of(val, n, Overflows{});
}
std::int64_t first_flushed(const double* val, std::int64_t n) {
  return first_of(val, n, Flushes{});
}
std::int64_t first_flushed(const float* val, std::int64_t n) {
  return first_of(val, n, Flushes{});
}
void round_values(const double* in, std::int64_t n, float* out) {
  round_all(in, n, out);
}
void round_values(const float* in, std::int64_t n, std::uint16_t* out) {
  round_all(in, n, out);
}

}  // namespace spx::cuda::conv
