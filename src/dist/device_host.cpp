// Builds without CUDA: the device entry points of the distributed layer
// exist and throw Unsupported (no device matrix can be built there anyway).
#include "dist/device.hpp"

#include "core/instantiate.hpp"
#include "spx/core/error.hpp"

#if !SPX_HAVE_CUDA
namespace spx::dist::detail {

namespace {
[[noreturn]] void no_cuda() {
  throw Unsupported("distributed device products: this build of SpX has no CUDA backend");
}
}  // namespace

template <Value T, Index I>
void device_pack(const T*, std::int64_t, bool, std::int64_t, const I*, std::int64_t, T*,
                 CUstream_st*) {
  no_cuda();
}
template <Value T, Index I>
void device_scatter_add(const T*, std::int64_t, const I*, std::int64_t, T*, std::int64_t, bool,
                        CUstream_st*) {
  no_cuda();
}
template <Value T>
void device_fill(T*, std::int64_t, T) {
  no_cuda();
}
template <Value T>
void device_axpy(std::int64_t, T, const T*, T*) {
  no_cuda();
}
template <Value T>
void device_xpby(std::int64_t, const T*, T, T*) {
  no_cuda();
}
template <Value T>
double device_dot(std::int64_t, const T*, const T*) {
  no_cuda();
}
void device_sync(CUstream_st*) {
  no_cuda();
}
void device_copy_sync(void*, const void*, std::size_t, CUstream_st*) {
  no_cuda();
}
bool nccl_built() noexcept {
  return false;
}
std::unique_ptr<DeviceExchange> make_nccl_exchange(MPI_Comm) {
  throw Unsupported("NCCL exchange: this build of SpX has no CUDA backend");
}

SPX_FOR_EACH_TYPE_PAIR(SPX_DIST_INSTANTIATE_PACK)
SPX_DIST_INSTANTIATE_VECTOR(float)
SPX_DIST_INSTANTIATE_VECTOR(double)

}  // namespace spx::dist::detail
#endif
