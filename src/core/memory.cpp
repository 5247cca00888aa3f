#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>

#include "core/device.hpp"
#include "spx/core/array.hpp"

namespace spx {
namespace detail {

namespace {
constexpr std::size_t kHostAlignment = 64;
}

void* allocate(std::size_t bytes, Space space) {
  if (space == Space::Device) return device_malloc(bytes);
  // aligned_alloc wants a multiple of the alignment.
  const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* p = rounded >= bytes ? std::aligned_alloc(kHostAlignment, rounded) : nullptr;
  if (p == nullptr)
    throw OutOfMemory(fmt::format("host allocation of {} bytes failed", bytes), bytes);
  return p;
}

void deallocate(void* p, Space space) noexcept {
  if (space == Space::Device) {
    device_free(p);
  } else {
    std::free(p);
  }
}

void copy_bytes(void* dst, Space dst_space, const void* src, Space src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space == Space::Host && src_space == Space::Host) {
    std::memcpy(dst, src, bytes);
  } else {
    device_copy(dst, src, bytes);
  }
}

#if !SPX_HAVE_CUDA
namespace {
[[noreturn]] void no_cuda() {
  throw Unsupported("device memory requested, but SpX was built without the CUDA backend");
}
}  // namespace
void* device_malloc(std::size_t) {
  no_cuda();
}
void device_free(void*) noexcept {}
void device_copy(void*, const void*, std::size_t) {
  no_cuda();
}
#endif

}  // namespace detail

#if !SPX_HAVE_CUDA
bool cuda_compiled() noexcept {
  return false;
}
bool cuda_available() noexcept {
  return false;
}
#endif

}  // namespace spx
