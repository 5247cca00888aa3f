#include "cuda/launch.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "spx/core/error.hpp"

namespace spx::cuda {

namespace {

int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

/// SpX's stream-ordered pool on `device`, created on first use. Its release
/// threshold is unlimited, so memory freed by one call is kept for the next.
cudaMemPool_t scratch_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  std::lock_guard lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(device))
    pools.resize(static_cast<std::size_t>(device) + 1, nullptr);
  cudaMemPool_t& pool = pools[static_cast<std::size_t>(device)];
  if (pool == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
  }
  return pool;
}

/// The bytes of freed device arrays SpX keeps for reuse on a device:
/// $SPX_DEVICE_CACHE_BYTES when set (0 keeps nothing), else an eighth of its
/// memory, at most 4 GiB. A malformed value is an error, named.
std::uint64_t cache_bytes(std::size_t total) {
  if (const char* env = std::getenv("SPX_DEVICE_CACHE_BYTES"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (errno != 0 || env[0] < '0' || env[0] > '9' || *end != '\0')
      throw InvalidInput(fmt::format(
          "SPX_DEVICE_CACHE_BYTES must be a number of bytes (0 or more), it is '{}'", env));
    return v;
  }
  return std::min<std::uint64_t>(total / 8, std::uint64_t{4} << 30);
}

/// The pool SpX allocates device arrays from, per device, created on first
/// use: cudaMalloc cost 55–120 us and cudaFree 60–260 us per array of 1–300
/// MiB on the H200 (session 24), about 3 products of a 20 M-entry matrix per
/// conversion, where an allocation the pool can serve from freed memory
/// costs a few microseconds. Freed memory past cache_bytes goes back to the
/// driver at the next synchronization.
cudaMemPool_t array_pool(int device) {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  std::lock_guard lock(mutex);
  if (pools.size() <= static_cast<std::size_t>(device))
    pools.resize(static_cast<std::size_t>(device) + 1, nullptr);
  cudaMemPool_t& pool = pools[static_cast<std::size_t>(device)];
  if (pool == nullptr) {
    std::size_t free_bytes = 0, total = 0;
    check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    std::uint64_t keep = cache_bytes(total);
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t created = nullptr;
    check(cudaMemPoolCreate(&created, &props), "cudaMemPoolCreate (device arrays)");
    check(cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
    pool = created;
  }
  return pool;
}
}  // namespace

int sm_count() {
  int count = 0;
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, current_device()),
        "cudaDeviceGetAttribute(cudaDevAttrMultiProcessorCount)");
  return count;
}

std::int64_t l2_bytes() {
  int bytes = 0;
  check(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, current_device()),
        "cudaDeviceGetAttribute(cudaDevAttrL2CacheSize)");
  return bytes;
}

std::int64_t resident_threads() {
  int per_sm = 0;
  check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, current_device()),
        "cudaDeviceGetAttribute(cudaDevAttrMaxThreadsPerMultiProcessor)");
  return std::int64_t{per_sm} * sm_count();
}

std::int64_t resident_warps(const void* kernel, int block, std::string_view name) {
  int blocks_per_sm = 0;
  const cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, 0);
  if (err != cudaSuccess)
    check(err, fmt::format("cudaOccupancyMaxActiveBlocksPerMultiprocessor({})", name));
  return std::int64_t{std::max(blocks_per_sm, 1)} * (block / 32) * sm_count();
}

unsigned grid_size(std::int64_t threads, int block, std::string_view kernel) {
  const std::int64_t blocks = (threads + block - 1) / block;
  if (blocks > std::numeric_limits<std::int32_t>::max())
    throw Unsupported(fmt::format("{}: {} threads need {} blocks of {}, more than a grid holds",
                                  kernel, threads, blocks, block));
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

unsigned stride_grid(std::int64_t items) {
  return static_cast<unsigned>(std::min<std::int64_t>((items + kBlock - 1) / kBlock, 65535));
}

cudaMemPool_t array_pool() {
  return array_pool(current_device());
}

void trim_memory_pools() noexcept {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return;
  cudaDeviceSynchronize();
  try {
    cudaMemPoolTrimTo(scratch_pool(device), 0);
    cudaMemPoolTrimTo(array_pool(device), 0);
  } catch (...) {  // a pool that cannot be created keeps nothing to give back
  }
  cudaGetLastError();
}

StreamScratch::StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  if (bytes == 0) return;
  cudaError_t err = cudaMallocFromPoolAsync(&data_, bytes, scratch_pool(current_device()), stream);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    // What SpX's pools keep goes back to the driver, then one more try.
    trim_memory_pools();
    err = cudaMallocFromPoolAsync(&data_, bytes, scratch_pool(current_device()), stream);
  }
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it, so that the next launch check does not report it
    throw OutOfMemory(fmt::format("device scratch allocation of {} bytes failed", bytes), bytes);
  }
  check(err, "cudaMallocFromPoolAsync");
}

StreamScratch::~StreamScratch() {
  // Stream-ordered: the memory returns to the pool once the kernels queued
  // before this point on the stream have finished with it.
  if (data_ != nullptr) cudaFreeAsync(data_, stream_);
}

}  // namespace spx::cuda
