#include "cuda/launch.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
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

StreamScratch::StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  if (bytes == 0) return;
  const cudaError_t err =
      cudaMallocFromPoolAsync(&data_, bytes, scratch_pool(current_device()), stream);
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
