// Host memory (the core's own) and device memory (through the backend that
// owns it, src/core/backend.hpp).
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "core/backend.hpp"
#include "core/out_of_memory.hpp"
#include "spx/core/array.hpp"

namespace spx {
namespace detail {

namespace {
constexpr std::size_t kHostAlignment = 64;
}

const BackendModule* find_backend(Backend b) noexcept {
  for (const BackendModule* m : builtin_backends())
    if (m->backend == b) return m;
  return nullptr;
}

const BackendModule& device_backend(std::string_view what) {
  for (const BackendModule* m : builtin_backends())
    if (m->space == Space::Device) return *m;
  throw Unsupported(
      fmt::format("{}: device memory requested, but SpX was built without a device backend", what));
}

void* allocate(std::size_t bytes, Space space) {
  if (space == Space::Device) return device_backend("allocation").allocate(bytes);
  // aligned_alloc wants a multiple of the alignment.
  const std::size_t rounded = (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  void* p = rounded >= bytes ? std::aligned_alloc(kHostAlignment, rounded) : nullptr;
  if (p == nullptr) host_allocation_failed(bytes);
  return p;
}

void host_allocation_failed(std::size_t bytes) {
  throw OutOfMemory(fmt::format("host allocation of {} bytes failed", bytes), bytes);
}

void host_copy_failed(std::size_t bytes) {
  throw OutOfMemory(fmt::format("host copy of {} bytes failed", bytes), bytes);
}

void rethrow_allocation_failure(std::string_view op) {
  try {
    throw;
  } catch (const OutOfMemory& e) {
    const std::string_view what = e.what();
    if (what.starts_with(op) && what.substr(op.size()).starts_with(": ")) throw;
    throw OutOfMemory(fmt::format("{}: {}", op, what), e.bytes());
  } catch (const std::bad_alloc& e) {
    throw OutOfMemory(fmt::format("{}: out of host memory: an allocation failed ({}; the C++ "
                                  "allocator does not report the size asked for)",
                                  op, e.what()),
                      0);
  } catch (const std::length_error& e) {
    throw OutOfMemory(fmt::format("{}: out of host memory: a container was asked for more "
                                  "elements than it can hold ({})",
                                  op, e.what()),
                      0);
  }
}

void deallocate(void* p, Space space) noexcept {
  if (space == Space::Device) {
    // Device memory exists only where a device backend allocated it.
    for (const BackendModule* m : builtin_backends())
      if (m->space == Space::Device) return m->deallocate(p);
  } else {
    std::free(p);
  }
}

void copy_bytes(void* dst, Space dst_space, const void* src, Space src_space, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_space == Space::Host && src_space == Space::Host) {
    std::memcpy(dst, src, bytes);
  } else {
    device_backend("copy").copy(dst, src, bytes);
  }
}

}  // namespace detail

bool cuda_compiled() noexcept {
  return detail::find_backend(Backend::Cuda) != nullptr;
}

bool cuda_available() noexcept {
  const detail::BackendModule* m = detail::find_backend(Backend::Cuda);
  return m != nullptr && m->available();
}

}  // namespace spx
