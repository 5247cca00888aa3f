#include "cuda/launch.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::cuda {

namespace {

int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

/// SpX's memory pools of one kind, one per device, created on first use (on
/// the current device) with the release threshold keep(): the bytes of freed
/// memory the pool keeps past a synchronization.
class DevicePools {
 public:
  using Keep = std::uint64_t (*)();
  DevicePools(const char* what, Keep keep) : what_(what), keep_(keep) {}

  cudaMemPool_t on(int device) {
    std::lock_guard lock(mutex_);
    if (pools_.size() <= static_cast<std::size_t>(device))
      pools_.resize(static_cast<std::size_t>(device) + 1, nullptr);
    cudaMemPool_t& pool = pools_[static_cast<std::size_t>(device)];
    if (pool == nullptr) {
      std::uint64_t keep = keep_();
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      cudaMemPool_t created = nullptr;
      check(cudaMemPoolCreate(&created, &props), fmt::format("cudaMemPoolCreate ({})", what_));
      check(cudaMemPoolSetAttribute(created, cudaMemPoolAttrReleaseThreshold, &keep),
            "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
      pool = created;
    }
    return pool;
  }

 private:
  const char* what_;
  Keep keep_;
  std::mutex mutex_;
  std::vector<cudaMemPool_t> pools_;
};

/// Per-call scratch: an unlimited release threshold, so memory freed by one
/// call is kept for the next.
DevicePools& scratch_pools() {
  static DevicePools pools("scratch", [] { return std::numeric_limits<std::uint64_t>::max(); });
  return pools;
}

/// The bytes of freed device arrays SpX keeps for reuse on the current
/// device: $SPX_DEVICE_CACHE_BYTES when set (0 keeps nothing), else an
/// eighth of its memory, at most 4 GiB. A malformed value is an error, named.
std::uint64_t cache_bytes() {
  if (const char* env = std::getenv("SPX_DEVICE_CACHE_BYTES"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (errno != 0 || env[0] < '0' || env[0] > '9' || *end != '\0')
      throw InvalidInput(fmt::format(
          "SPX_DEVICE_CACHE_BYTES must be a number of bytes (0 or more), it is '{}'", env));
    return v;
  }
  std::size_t free_bytes = 0, total = 0;
  check(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
  return std::min<std::uint64_t>(total / 8, std::uint64_t{4} << 30);
}

/// Device arrays: cudaMalloc cost 55–120 us and cudaFree 60–260 us per array
/// of 1–300 MiB on the H200 (session 24), about 3 products of a 20 M-entry
/// matrix per conversion, where an allocation the pool can serve from freed
/// memory costs a few microseconds. Freed memory past cache_bytes goes back
/// to the driver at the next synchronization.
DevicePools& array_pools() {
  static DevicePools pools("device arrays", cache_bytes);
  return pools;
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

double peak_memory_gbs() {
  const int device = current_device();
  int khz = 0, bits = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    (void)cudaGetLastError();  // not reported: the rules read slow memory
    return 0.0;
  }
  // kHz × 1e3 = Hz; × 2 transfers a clock; × bits / 8 = bytes a second.
  return 2.0 * 1e3 * static_cast<double>(khz) * static_cast<double>(bits) / 8.0 / 1e9;
}

AutoDevice auto_device() {
  if (!cuda_available()) return {};
  static std::mutex mutex;
  static std::vector<std::optional<AutoDevice>> devices;
  const int device = current_device();
  std::lock_guard lock(mutex);
  if (devices.size() <= static_cast<std::size_t>(device))
    devices.resize(static_cast<std::size_t>(device) + 1);
  std::optional<AutoDevice>& d = devices[static_cast<std::size_t>(device)];
  if (!d) d = AutoDevice{resident_threads(), l2_bytes(), sm_count(), peak_memory_gbs()};
  return *d;
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

void trim_memory_pools() noexcept {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return;
  cudaDeviceSynchronize();
  try {
    cudaMemPoolTrimTo(scratch_pools().on(device), 0);
    cudaMemPoolTrimTo(array_pools().on(device), 0);
  } catch (...) {  // a pool that cannot be created keeps nothing to give back
  }
  cudaGetLastError();
}

cudaError_t pool_allocate(void** p, std::size_t bytes, PoolKind kind, cudaStream_t stream) {
  DevicePools& pools = kind == PoolKind::Scratch ? scratch_pools() : array_pools();
  cudaError_t err = cudaMallocFromPoolAsync(p, bytes, pools.on(current_device()), stream);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    // What SpX's pools keep goes back to the driver, then one more try.
    trim_memory_pools();
    err = cudaMallocFromPoolAsync(p, bytes, pools.on(current_device()), stream);
  }
  // Cleared, so that the next launch check does not report it.
  if (err == cudaErrorMemoryAllocation) cudaGetLastError();
  return err;
}

StreamScratch::StreamScratch(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
  if (bytes == 0) return;
  const cudaError_t err = pool_allocate(&data_, bytes, PoolKind::Scratch, stream);
  if (err == cudaErrorMemoryAllocation)
    throw OutOfMemory(fmt::format("device scratch allocation of {} bytes failed", bytes), bytes);
  check(err, "cudaMallocFromPoolAsync");
}

StreamScratch::~StreamScratch() {
  // Stream-ordered: the memory returns to the pool once the kernels queued
  // before this point on the stream have finished with it.
  if (data_ != nullptr) cudaFreeAsync(data_, stream_);
}

}  // namespace spx::cuda
