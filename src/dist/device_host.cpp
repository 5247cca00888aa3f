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

#define SPX_INST(T, I)                                                                          \
  template void device_pack(const T*, std::int64_t, bool, std::int64_t, const I*, std::int64_t, \
                            T*, CUstream_st*);
SPX_FOR_EACH_TYPE_PAIR(SPX_INST)
#undef SPX_INST
#define SPX_INST(T)                                         \
  template void device_fill(T*, std::int64_t, T);           \
  template void device_axpy(std::int64_t, T, const T*, T*); \
  template void device_xpby(std::int64_t, const T*, T, T*); \
  template double device_dot(std::int64_t, const T*, const T*);
SPX_INST(float)
SPX_INST(double)
#undef SPX_INST

}  // namespace spx::dist::detail
#endif
