// Array<T>: an owning, contiguous buffer bound to one memory space.
//
// Nothing copies implicitly: Array is move-only; `clone()` and `to(space)` are
// the explicit copies. Host memory is 64-byte aligned. Allocation failure in
// either space raises OutOfMemory with the number of bytes asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx {

namespace detail {
void* allocate(std::size_t bytes, Space space);
void deallocate(void* p, Space space) noexcept;
/// Copies `bytes` between any two spaces; synchronous.
void copy_bytes(void* dst, Space dst_space, const void* src, Space src_space, std::size_t bytes);
}  // namespace detail

template <class T>
class Array {
  static_assert(std::is_trivially_copyable_v<T>, "Array holds trivially copyable types");

 public:
  using value_type = T;

  Array() = default;
  /// `n` uninitialized elements in `space`.
  explicit Array(std::size_t n, Space space = Space::Host) : size_(n), space_(space) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T))
      throw OutOfMemory("array of " + std::to_string(n) + " elements exceeds the address space",
                        std::numeric_limits<std::size_t>::max());
    if (n > 0) data_ = static_cast<T*>(detail::allocate(n * sizeof(T), space));
  }
  /// Host array copied from `values`.
  Array(std::initializer_list<T> values)
      : Array(std::span<const T>(values.begin(), values.size())) {}
  /// Copy of `values` (host memory) placed in `space`.
  explicit Array(std::span<const T> values, Space space = Space::Host)
      : Array(values.size(), space) {
    if (size_ > 0) detail::copy_bytes(data_, space_, values.data(), Space::Host, bytes());
  }
  explicit Array(const std::vector<T>& values, Space space = Space::Host)
      : Array(std::span<const T>(values), space) {}

  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  Array(Array&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        space_(o.space_) {}
  Array& operator=(Array&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      space_ = o.space_;
    }
    return *this;
  }
  ~Array() { release(); }

  /// `n` copies of `value` on the host.
  static Array filled(std::size_t n, T value) {
    Array a(n);
    for (std::size_t i = 0; i < n; ++i)
      a.data_[i] = value;
    return a;
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  Space space() const noexcept { return space_; }

  /// Element access; host arrays only (checked in debug builds).
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  /// Host view; throws Unsupported for device arrays.
  std::span<T> host_span() {
    require_host();
    return {data_, size_};
  }
  std::span<const T> host_span() const {
    require_host();
    return {data_, size_};
  }

  /// Explicit copy into `space` (which may be the same space).
  Array to(Space space) const {
    Array out(size_, space);
    if (size_ > 0) detail::copy_bytes(out.data_, space, data_, space_, bytes());
    return out;
  }
  Array clone() const { return to(space_); }
  /// Copy to a host std::vector, from either space.
  std::vector<T> to_vector() const {
    std::vector<T> v(size_);
    if (size_ > 0) detail::copy_bytes(v.data(), Space::Host, data_, space_, bytes());
    return v;
  }

 private:
  void require_host() const {
    if (space_ != Space::Host) throw Unsupported("host access to an array in device memory");
  }
  void release() noexcept {
    if (data_) detail::deallocate(data_, space_);
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  Space space_ = Space::Host;
};

}  // namespace spx
