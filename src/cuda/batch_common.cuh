// Device-side pieces shared by the batch kernels: the batch views the kernels
// receive, the x accessors (shared or global memory), staging, the row
// accumulators and the launch-size helpers. Warp reductions and the BLAS
// stores are the ones of all CUDA kernels (primitives.cuh).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/batch_schedule.hpp"
#include "cuda/batch_kernels.hpp"
#include "cuda/cache_entries.hpp"
#include "cuda/check.hpp"
#include "cuda/primitives.cuh"
#include "spx/batch/batch.hpp"

namespace spx::cuda::batch {

/// Most threads per block of the one-block-per-matrix kernels (launch bounds).
inline constexpr int kMaxThreads = 256;

/// The dynamic shared memory of a batch kernel, as T elements.
template <class T>
__device__ T* shared_buffer() {
  extern __shared__ __align__(16) unsigned char spx_batch_shared[];
  return reinterpret_cast<T*>(spx_batch_shared);
}

/// x of one matrix staged in shared memory.
template <class T>
struct SharedX {
  const T* p;
  __device__ T operator[](std::int64_t c) const { return p[c]; }
};
/// x of one matrix read from global memory through the read-only cache.
template <class T>
struct GlobalX {
  const T* p;
  __device__ T operator[](std::int64_t c) const { return __ldg(p + c); }
};

/// Block-cooperative copy of n entries of x into shared memory (the caller
/// synchronizes).
template <class T>
__device__ void stage_x(T* s, const T* __restrict__ x, std::int64_t n) {
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x)
    s[i] = x[i];
}

/// Adds a segment sum to a row accumulator in shared memory.
template <class T>
struct SharedAcc {
  T* acc;
  __device__ void add(std::int64_t r, T v) const { atomicAdd(acc + r, v); }
};
/// Adds alpha times a segment sum to y in global memory (y already scaled).
template <class T>
struct GlobalAcc {
  T* y;
  T alpha;
  __device__ void add(std::int64_t r, T v) const { atomicAdd(y + r, alpha * v); }
};

/// Where matrix b lives: its rows in y, its columns in x, its value slots.
struct Slice {
  std::int64_t row0, m, col0, n, val0, slots;
};
__device__ __forceinline__ Slice slice_of(const std::int64_t* __restrict__ row_off,
                                          const std::int64_t* __restrict__ col_off,
                                          const std::int64_t* __restrict__ val_off,
                                          std::int64_t b) {
  Slice s;
  s.row0 = row_off[b];
  s.m = row_off[b + 1] - s.row0;
  s.col0 = col_off[b];
  s.n = col_off[b + 1] - s.col0;
  s.val0 = val_off[b];
  s.slots = val_off[b + 1] - s.val0;
  return s;
}

/// Calls rows(xb) with xb the x of matrix s: staged in shared memory when it
/// fits the staging buffer of `stage` entries (the block synchronizes after
/// staging), else read through the read-only cache. The choice is per block.
template <class T, class Rows>
__device__ __forceinline__ void with_x(const T* x, const Slice& s, std::int64_t stage,
                                       Rows&& rows) {
  if (s.n <= stage) {
    T* xs = shared_buffer<T>();
    stage_x(xs, x + s.col0, s.n);
    __syncthreads();
    rows(SharedX<T>{xs});
  } else {
    rows(GlobalX<T>{x + s.col0});
  }
}

/// A CSR batch as the kernels see it. In a uniform batch every matrix uses
/// the one row pointer and column index array; values are always per matrix.
template <class T, class I>
struct CsrView {
  const std::int64_t* row_off;
  const std::int64_t* col_off;
  const std::int64_t* val_off;
  const I* row_ptr;
  const I* col_idx;
  const T* values;
  bool uniform;

  /// Matrix b's row pointer (row0 = its first row in y).
  __device__ const I* ptr(std::int64_t b, std::int64_t row0) const {
    return uniform ? row_ptr : row_ptr + row0 + b;
  }
  /// Matrix b's column indices (val0 = its first value slot).
  __device__ const I* cols(std::int64_t val0) const { return uniform ? col_idx : col_idx + val0; }
};

template <class T, class I>
CsrView<T, I> csr_view(const BatchCsr<T, I>& A) {
  return {A.row_offsets().data(), A.col_offsets().data(), A.value_offsets().data(),
          A.row_ptr().data(),     A.col_idx().data(),     A.values().data(),
          A.is_uniform()};
}

// ---- host-side launch sizing ----

/// Threads for `work` parallel units: a multiple of 32 in [32, kMaxThreads].
inline int threads_for(std::int64_t work) {
  const std::int64_t t = (std::clamp<std::int64_t>(work, 1, kMaxThreads) + 31) / 32 * 32;
  return static_cast<int>(t);
}

/// Entries of T that the staging buffer holds: the largest per-matrix need in
/// the batch, capped by the shared memory one block may use.
template <class T>
std::int64_t stage_entries(std::int64_t largest_need) {
  const std::int64_t limit = shared_bytes_per_block() / static_cast<std::int64_t>(sizeof(T));
  return std::min(largest_need, limit);
}

/// Launches kernel(args..., stage) over `blocks` blocks of `threads`, with a
/// staging buffer of `stage` entries of T (dynamic shared memory), on
/// `stream`; checked, `name` naming the kernel in an error.
template <class T, class... Params, class... Args>
void launch_blocks(void (*kernel)(Params...), std::int64_t blocks, int threads, std::int64_t stage,
                   cudaStream_t stream, const char* name, const Args&... args) {
  kernel<<<static_cast<unsigned>(blocks), threads, stage * sizeof(T), stream>>>(args..., stage);
  check_launch(name);
}

/// Throws when the batch has more matrices than one grid can hold.
inline void check_grid(std::int64_t blocks, const char* kernel) {
  if (blocks > kMaxBlocks)
    throw Unsupported(std::string(kernel) + ": " + std::to_string(blocks) +
                      " thread blocks exceed the grid limit of 2^31 - 1");
}

}  // namespace spx::cuda::batch
