// Host-side helpers for launching kernels: the block size, device
// properties, grid sizes, per-call scratch memory ordered on the call's
// stream, and the temporary storage of CUB algorithms. No fmt here (included
// by .cu files).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cuda/check.hpp"

namespace spx::cuda {

/// Threads per block of the SpMV kernels, the conversion passes and the small
/// helper kernels (the SpMM kernels use their own, spmm_tile.cuh).
inline constexpr int kBlock = 256;

/// Streaming multiprocessors of the current device.
int sm_count();

/// Bytes of L2 cache of the current device.
std::int64_t l2_bytes();

/// Threads the current device holds at once (SMs × threads per SM): one wave.
std::int64_t resident_threads();

/// The current device's peak DRAM bandwidth in GB/s, from its attributes:
/// 2 (double data rate) × the peak memory clock × the bus width; 0 (never an
/// error) when the device does not report them. Under MIG the attributes
/// may describe the whole GPU's bus while the SMs are the slice's.
double peak_memory_gbs();

/// What the Auto rules read of a device (cuda::choose_csr_on). All zeros
/// stand for no usable device: no wave is then small, nothing fits the L2
/// cache, and the memory is not fast (a rule asked about a host matrix).
struct AutoDevice {
  std::int64_t resident_threads = 0;  ///< SMs × threads per SM
  std::int64_t l2_bytes = 0;
  int sms = 0;
  double peak_memory_gbs = 0;  ///< peak_memory_gbs()
};

/// The current device's AutoDevice, read once per device and kept (the
/// figures do not change while the process runs); all zeros without a
/// usable device.
AutoDevice auto_device();

/// Warps of `kernel` (a __global__ function, launched in blocks of `block`
/// threads without dynamic shared memory) that the GPU holds at once: its
/// occupancy × the SMs, at least one block per SM. `name` names the kernel
/// in an error.
std::int64_t resident_warps(const void* kernel, int block, std::string_view name);

/// Blocks of `block` threads needed for `threads` threads; throws
/// Unsupported naming `kernel` when the grid would exceed 2^31 - 1 blocks.
unsigned grid_size(std::int64_t threads, int block, std::string_view kernel);

/// Calls f.template operator()<V>() with V the first of Vs equal to v, or
/// with V = Fallback when none is: how a launcher turns a runtime size (lanes
/// per row, block size, ...) into one of the sizes compiled for.
template <int Fallback, int... Vs, class F>
void with_constant(int v, F&& f) {
  const bool found = ((v == Vs ? (f.template operator()<Vs>(), true) : false) || ...);
  if (!found) f.template operator()<Fallback>();
}

/// Blocks of kBlock threads for a grid-stride loop over `items`: one item per
/// thread, at most 65535 blocks.
unsigned stride_grid(std::int64_t items);

/// SpX's two stream-ordered memory pools per device: Scratch for one call's
/// temporaries (StreamScratch; keeps all it is given back) and Array for
/// spx::Array in Space::Device (src/cuda/runtime.cpp; keeps up to
/// $SPX_DEVICE_CACHE_BYTES of freed memory, default an eighth of the
/// device's memory, at most 4 GiB; a malformed value raises InvalidInput).
enum class PoolKind { Scratch, Array };

/// cudaMallocFromPoolAsync of `bytes` from the current device's pool of
/// `kind`, in `stream`'s order. Out of memory, it gives back what both pools
/// keep (trim_memory_pools) and tries once more; a last
/// cudaErrorMemoryAllocation is returned with the runtime's error cleared.
cudaError_t pool_allocate(void** p, std::size_t bytes, PoolKind kind, cudaStream_t stream);

/// Waits for the current device and gives back to the driver what SpX's
/// two pools keep: the step before an allocation's one retry after running
/// out of memory.
void trim_memory_pools() noexcept;

/// Device memory for one call, allocated and freed in stream order
/// (cudaMallocFromPoolAsync / cudaFreeAsync on the call's stream) from a
/// memory pool that SpX keeps per device and never trims. Concurrent calls on
/// different streams therefore never share scratch, and after the first call
/// no call reaches cudaMalloc. Allocation failure trims both pools and
/// tries once more, then raises OutOfMemory with the size asked for.
class StreamScratch {
 public:
  StreamScratch(std::size_t bytes, cudaStream_t stream);
  ~StreamScratch();
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  template <class T>
  T* as() const noexcept {
    return static_cast<T*>(data_);
  }

 private:
  void* data_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

/// n elements of U from StreamScratch on the default stream (at least one,
/// so that n = 0 still yields a valid pointer).
template <class U>
class Scratch {
 public:
  explicit Scratch(std::int64_t n)
      : mem_(static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(U), cudaStream_t{}) {}
  U* get() const noexcept { return mem_.as<U>(); }

 private:
  StreamScratch mem_;
};

/// Runs a CUB device algorithm, f(temp, bytes) returning its cudaError_t,
/// twice: for the size of its temporary storage (temp = nullptr), then with
/// that storage from StreamScratch on `stream` (released in stream order
/// after the call). Both calls are checked, naming `what`.
template <class F>
void with_cub_temp(std::string_view what, cudaStream_t stream, F&& f) {
  std::size_t bytes = 0;
  check(f(nullptr, bytes), what);
  const StreamScratch temp(bytes > 0 ? bytes : 1, stream);
  check(f(temp.as<void>(), bytes), what);
}

}  // namespace spx::cuda
