// Array<T>: a contiguous buffer bound to one memory space, owning its memory
// or viewing memory that belongs to someone else.
//
// Nothing copies implicitly: Array is move-only; `clone()` and `to(space)` are
// the explicit copies, and they always own. Host memory SpX allocates is
// 64-byte aligned. Allocation failure in either space raises OutOfMemory with
// the number of bytes asked for.
//
// A view (`Array::view`) is the same type over the caller's memory: kernels see
// the same data(), size() and space() and cannot tell it from an owning array.
// SpX never frees a view's memory; the caller keeps it alive (and in place) as
// long as the view, or any matrix built over it, is used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <string_view>
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
/// Throws OutOfMemory for a host copy of `bytes` bytes that could not be
/// allocated (Array::to_vector).
[[noreturn]] void host_copy_failed(std::size_t bytes);

/// Throws InvalidInput, naming `what`, unless `data` can hold a view of `n`
/// elements of `size` bytes and alignment `align`: not null when n > 0,
/// aligned, and not running past the end of the address space.
inline void check_view(std::string_view what, const void* data, std::size_t n, std::size_t size,
                       std::size_t align) {
  if (data == nullptr && n > 0)
    throw InvalidInput(std::string(what) + ": null pointer with " + std::to_string(n) +
                       " elements");
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  if (begin % align != 0)
    throw InvalidInput(std::string(what) + ": pointer not aligned to " + std::to_string(align) +
                       " bytes, the alignment of its element type");
  if (n > (std::numeric_limits<std::uintptr_t>::max() - begin) / size)
    throw InvalidInput(std::string(what) + ": " + std::to_string(n) + " elements of " +
                       std::to_string(size) + " bytes from address " + std::to_string(begin) +
                       " run past the end of the address space");
}
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
  /// A move keeps owning or viewing; the source is left empty.
  Array(Array&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        space_(o.space_),
        view_(std::exchange(o.view_, false)) {}
  Array& operator=(Array&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      space_ = o.space_;
      view_ = std::exchange(o.view_, false);
    }
    return *this;
  }
  ~Array() { release(); }

  /// A view of `n` elements at `data`, memory in `space` that the caller owns:
  /// no copy, and SpX never frees it. Throws InvalidInput for a null `data`
  /// with n > 0 or a pointer not aligned for T.
  static Array view(T* data, std::size_t n, Space space = Space::Host) {
    detail::check_view("Array::view", data, n, sizeof(T), alignof(T));
    Array a;
    a.data_ = data;
    a.size_ = n;
    a.space_ = space;
    a.view_ = true;
    return a;
  }

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
  /// True for a view of the caller's memory (Array::view), false when owning.
  bool is_view() const noexcept { return view_; }

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

  /// Explicit copy into `space` (which may be the same space); owning, also
  /// when this array is a view.
  Array to(Space space) const {
    Array out(size_, space);
    if (size_ > 0) detail::copy_bytes(out.data_, space, data_, space_, bytes());
    return out;
  }
  Array clone() const { return to(space_); }
  /// Copy to a host std::vector, from either space.
  std::vector<T> to_vector() const {
    std::vector<T> v;
    try {
      v.resize(size_);
    } catch (const std::bad_alloc&) {
      detail::host_copy_failed(bytes());
    }
    if (size_ > 0) detail::copy_bytes(v.data(), Space::Host, data_, space_, bytes());
    return v;
  }

 private:
  void require_host() const {
    if (space_ != Space::Host) throw Unsupported("host access to an array in device memory");
  }
  void release() noexcept {
    if (data_ && !view_) detail::deallocate(data_, space_);
    data_ = nullptr;
    size_ = 0;
    view_ = false;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  Space space_ = Space::Host;
  bool view_ = false;  ///< the memory is the caller's: never freed here
};

}  // namespace spx
