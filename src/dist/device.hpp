// The device side of the distributed layer: halo packing and vector kernels
// (src/dist/cuda/kernels.cu) and the NCCL exchange (src/dist/cuda/nccl.cpp).
// Plain declarations without CUDA types, so that host files include them;
// builds without CUDA get stubs that throw Unsupported (device_host.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <mpi.h>

#include "spx/core/types.hpp"

struct CUstream_st;

namespace spx::dist::detail {

/// buf[k*n + j] = X(idx[k], j) for k < count, j < n: X row-major
/// (X(i, j) = x[i*ld + j]) or column-major (x[i + j*ld]). Enqueued on stream.
template <Value T, Index I>
void device_pack(const T* x, std::int64_t ld, bool row_major, std::int64_t n, const I* idx,
                 std::int64_t count, T* buf, CUstream_st* stream);

/// Y(rows[k], j) += buf[k*n + j] for k < count, j < n: Y row-major
/// (Y(i, j) = y[i*ld + j]) or column-major (y[i + j*ld]); rows distinct.
/// Enqueued on stream.
template <Value T, Index I>
void device_scatter_add(const T* buf, std::int64_t n, const I* rows, std::int64_t count, T* y,
                        std::int64_t ld, bool row_major, CUstream_st* stream);

// Vectors of n entries in device memory; synchronous (dot returns the sum).
template <Value T>
void device_fill(T* x, std::int64_t n, T value);
template <Value T>
void device_axpy(std::int64_t n, T alpha, const T* x, T* y);
template <Value T>
void device_xpby(std::int64_t n, const T* x, T beta, T* y);
template <Value T>
double device_dot(std::int64_t n, const T* x, const T* y);

/// The instantiations of the functions above, for the file that defines them
/// (cuda/kernels.cu with CUDA, device_host.cpp without):
/// SPX_FOR_EACH_TYPE_PAIR(SPX_DIST_INSTANTIATE_PACK) and
/// SPX_DIST_INSTANTIATE_VECTOR for float and double.
#define SPX_DIST_INSTANTIATE_PACK(T, I)                                                         \
  template void device_pack(const T*, std::int64_t, bool, std::int64_t, const I*, std::int64_t, \
                            T*, CUstream_st*);                                                  \
  template void device_scatter_add(const T*, std::int64_t, const I*, std::int64_t, T*,          \
                                   std::int64_t, bool, CUstream_st*);
#define SPX_DIST_INSTANTIATE_VECTOR(T)                      \
  template void device_fill(T*, std::int64_t, T);           \
  template void device_axpy(std::int64_t, T, const T*, T*); \
  template void device_xpby(std::int64_t, const T*, T, T*); \
  template double device_dot(std::int64_t, const T*, const T*);

/// Waits for everything enqueued on stream.
void device_sync(CUstream_st* stream);
/// Copies bytes between host and device (either direction), enqueued on
/// stream, then waits for it.
void device_copy_sync(void* dst, const void* src, std::size_t bytes, CUstream_st* stream);

/// The halo plan, as DistMatrix holds it.
struct HaloPlan {
  const std::vector<int>* send_ranks;
  const std::vector<std::int64_t>* send_offsets;
  const std::vector<int>* recv_ranks;
  const std::vector<std::int64_t>* recv_offsets;
};

/// A GPU-to-GPU exchange (NCCL): packed() marks the work enqueued so far on
/// `stream` (the pack); start() sends the packed values once that work is
/// done, on a stream of its own, so the caller may enqueue more work (the
/// local product) between the two; finish() makes `stream` wait for the
/// received values.
struct DeviceExchange {
  virtual ~DeviceExchange() = default;
  virtual void packed(CUstream_st* stream) = 0;
  virtual void start(const void* send, void* recv, const HaloPlan& plan, std::int64_t n,
                     bool f64) = 0;
  virtual void finish(CUstream_st* stream) = 0;
};

/// True when the build has NCCL.
bool nccl_built() noexcept;
/// An NCCL communicator over comm's ranks (collective; each rank on its
/// current CUDA device). Unsupported without NCCL.
std::unique_ptr<DeviceExchange> make_nccl_exchange(MPI_Comm comm);

}  // namespace spx::dist::detail
