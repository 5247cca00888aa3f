// Host-side helpers for launching kernels: device properties, grid sizes, and
// per-call scratch memory ordered on the call's stream. No fmt here (included
// by .cu files).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace spx::cuda {

/// Streaming multiprocessors of the current device.
int sm_count();

/// Blocks of `block` threads needed for `threads` threads; throws
/// Unsupported naming `kernel` when the grid would exceed 2^31 - 1 blocks.
unsigned grid_size(std::int64_t threads, int block, std::string_view kernel);

/// Device memory for one call, allocated and freed in stream order
/// (cudaMallocFromPoolAsync / cudaFreeAsync on the call's stream) from a
/// memory pool that SpX keeps per device and never trims. Concurrent calls on
/// different streams therefore never share scratch, and after the first call
/// no call reaches cudaMalloc. Allocation failure raises OutOfMemory with the
/// size asked for.
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

}  // namespace spx::cuda
