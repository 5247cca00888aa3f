// The generic device passes of the conversions: CUB scans and radix sorts
// (CCCL), the longest-row reduction, and the keys that order rows by length.
// Instantiated over the index type only (no value type here), to keep the
// CUB instantiations, and the compile time, small.
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <climits>
#include <cstdint>

#include "cuda/check.hpp"
#include "cuda/convert_device.hpp"
#include "cuda/convert_passes.cuh"
#include "cuda/primitives.cuh"

namespace spx::cuda::conv {
namespace {

struct SaturatingAdd {
  __device__ __forceinline__ std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    // Both operands are non-negative sizes.
    return a > LLONG_MAX - b ? LLONG_MAX : a + b;
  }
};

template <class I>
__global__ void __launch_bounds__(kBlock)
    longest_kernel(const I* __restrict__ ptr, std::int64_t rows,
                   unsigned long long* __restrict__ out) {
  std::int64_t best = 0;
  for (std::int64_t r = blockIdx.x * std::int64_t{kBlock} + threadIdx.x; r < rows;
       r += std::int64_t{gridDim.x} * kBlock)
    best = max(best, static_cast<std::int64_t>(ptr[r + 1]) - static_cast<std::int64_t>(ptr[r]));
  best = warp_max(best);
  if ((threadIdx.x & 31) == 0 && best > 0) atomicMax(out, static_cast<unsigned long long>(best));
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    length_sort_keys_kernel(const I* __restrict__ ptr, std::int64_t rows, std::int64_t window,
                            int len_bits, std::int64_t longest, std::uint64_t* __restrict__ keys,
                            I* __restrict__ values) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i >= rows) return;
  const std::int64_t len = static_cast<std::int64_t>(ptr[i + 1]) - ptr[i];
  const auto w = static_cast<std::uint64_t>(i / window);
  keys[i] = (len_bits >= 64 ? 0 : w << len_bits) | static_cast<std::uint64_t>(longest - len);
  values[i] = static_cast<I>(i);
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    length_keys_kernel(const I* __restrict__ ptr, std::int64_t rows,
                       std::uint64_t* __restrict__ keys) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i < rows)
    keys[i] = static_cast<std::uint64_t>(static_cast<std::int64_t>(ptr[i + 1]) - ptr[i]);
}

template <class I>
__global__ void __launch_bounds__(kBlock)
    narrow_kernel(const std::int64_t* __restrict__ in, std::int64_t n, I* __restrict__ out) {
  const std::int64_t i = blockIdx.x * std::int64_t{kBlock} + threadIdx.x;
  if (i < n) out[i] = static_cast<I>(in[i]);
}

}  // namespace

void exclusive_sum(std::int64_t* data, std::int64_t n) {
  if (n <= 0) return;
  with_cub_temp("cub::DeviceScan::ExclusiveSum", kStream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, data, data, n, kStream);
  });
}

void exclusive_sum_saturating(std::int64_t* data, std::int64_t n) {
  if (n <= 0) return;
  with_cub_temp("cub::DeviceScan::ExclusiveScan", kStream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveScan(temp, bytes, data, data, SaturatingAdd{}, std::int64_t{0},
                                          n, kStream);
  });
}

std::uint64_t* sort_keys(std::uint64_t* keys, std::uint64_t* alt, std::int64_t n, int end_bit) {
  if (n <= 1 || end_bit <= 0) return keys;
  cub::DoubleBuffer<std::uint64_t> k(keys, alt);
  with_cub_temp("cub::DeviceRadixSort::SortKeys", kStream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, k, n, 0, end_bit, kStream);
  });
  return k.Current();
}

template <Index I>
I* sort_pairs(std::uint64_t* keys, std::uint64_t* keys_alt, I* vals, I* vals_alt, std::int64_t n,
              int end_bit, std::uint64_t** sorted_keys) {
  if (n <= 1 || end_bit <= 0) {
    *sorted_keys = keys;
    return vals;
  }
  cub::DoubleBuffer<std::uint64_t> k(keys, keys_alt);
  cub::DoubleBuffer<I> v(vals, vals_alt);
  with_cub_temp("cub::DeviceRadixSort::SortPairs", kStream, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, kStream);
  });
  *sorted_keys = k.Current();
  return v.Current();
}

std::int64_t read_back(const std::int64_t* p) {
  std::int64_t v = 0;
  check(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy (conversion size)");
  return v;
}

std::uint64_t read_back(const std::uint64_t* p) {
  std::uint64_t v = 0;
  check(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy (conversion size)");
  return v;
}

template <Index I>
std::int64_t longest_row(const I* ptr, std::int64_t rows) {
  if (rows <= 0) return 0;
  StreamScratch out(sizeof(unsigned long long), kStream);
  check(cudaMemsetAsync(out.as<void>(), 0, sizeof(unsigned long long), kStream), "cudaMemsetAsync");
  const unsigned grid = std::min<unsigned>(grid_size(rows, kBlock, "longest_row"),
                                           static_cast<unsigned>(sm_count()) * 8u);
  longest_kernel<<<grid, kBlock, 0, kStream>>>(ptr, rows, out.as<unsigned long long>());
  check_launch("longest_row");
  return static_cast<std::int64_t>(read_back(out.as<std::uint64_t>()));
}

template <Index I>
void length_sort_keys(const I* ptr, std::int64_t rows, std::int64_t window, int len_bits,
                      std::int64_t longest, std::uint64_t* keys, I* values) {
  if (rows <= 0) return;
  length_sort_keys_kernel<<<grid_size(rows, kBlock, "length_sort_keys"), kBlock, 0, kStream>>>(
      ptr, rows, window, len_bits, longest, keys, values);
  check_launch("length_sort_keys");
}

template <Index I>
void length_keys(const I* ptr, std::int64_t rows, std::uint64_t* keys) {
  if (rows <= 0) return;
  length_keys_kernel<<<grid_size(rows, kBlock, "length_keys"), kBlock, 0, kStream>>>(ptr, rows,
                                                                                     keys);
  check_launch("length_keys");
}

template <Index I>
void narrow(const std::int64_t* in, std::int64_t n, I* out) {
  if (n <= 0) return;
  narrow_kernel<<<grid_size(n, kBlock, "narrow"), kBlock, 0, kStream>>>(in, n, out);
  check_launch("narrow");
}

#define SPX_INST(I)                                                                          \
  template I* sort_pairs<I>(std::uint64_t*, std::uint64_t*, I*, I*, std::int64_t, int,       \
                            std::uint64_t**);                                                \
  template std::int64_t longest_row<I>(const I*, std::int64_t);                              \
  template void length_sort_keys<I>(const I*, std::int64_t, std::int64_t, int, std::int64_t, \
                                    std::uint64_t*, I*);                                     \
  template void length_keys<I>(const I*, std::int64_t, std::uint64_t*);                      \
  template void narrow<I>(const std::int64_t*, std::int64_t, I*);
SPX_INST(std::int32_t)
SPX_INST(std::int64_t)
#undef SPX_INST

}  // namespace spx::cuda::conv
