// Every allocation failure leaves the library as spx::OutOfMemory naming the
// operation (issue 22). Array's allocations and copies already raise
// OutOfMemory with the bytes asked for (src/core/memory.cpp, Array::to_vector
// and the device backend's allocate); the standard containers the library
// uses for scratch raise std::bad_alloc (or std::length_error for a size
// beyond max_size()), which carries no size. The public entry points (the
// products, conversions, analyze, the batch builders, the format
// constructors) run their work through name_allocation_failures, or catch
// with rethrow_allocation_failure in a function-try-block, which turn both
// into OutOfMemory with the operation in front of the message.
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

namespace spx::detail {

/// Throws OutOfMemory "host allocation of {bytes} bytes failed".
[[noreturn]] void host_allocation_failed(std::size_t bytes);

/// The allocator of the library's host scratch vectors (HostVector): like
/// std::allocator, but a failure raises OutOfMemory with the bytes asked for
/// instead of std::bad_alloc, which has no size.
template <class T>
struct HostAllocator {
  static_assert(alignof(T) <= alignof(std::max_align_t), "over-aligned scratch type");
  using value_type = T;
  HostAllocator() = default;
  template <class U>
  HostAllocator(const HostAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
      host_allocation_failed(std::numeric_limits<std::size_t>::max());
    void* p = ::operator new(n * sizeof(T), std::nothrow);
    if (p == nullptr) host_allocation_failed(n * sizeof(T));
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
  template <class U>
  bool operator==(const HostAllocator<U>&) const noexcept {
    return true;
  }
};

/// A host scratch vector whose allocation failures report their size.
template <class T>
using HostVector = std::vector<T, HostAllocator<T>>;

/// Inside a catch handler: rethrows the exception being handled, an
/// allocation failure as OutOfMemory "{op}: {what failed}": an OutOfMemory
/// keeps its size (and is passed on unchanged when it already names `op`);
/// a std::bad_alloc or std::length_error from a standard container reports
/// size 0, which the message says is not known. Other exceptions pass
/// unchanged.
[[noreturn]] void rethrow_allocation_failure(std::string_view op);

/// Runs f() and returns its result, allocation failures named as by
/// rethrow_allocation_failure.
template <class F>
decltype(auto) name_allocation_failures(std::string_view op, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    rethrow_allocation_failure(op);
  }
}

}  // namespace spx::detail
