// Non-owning views of dense vectors and dense matrices, tagged with the space
// their memory lives in, so that operations can check where data is before a
// kernel touches it.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "spx/core/array.hpp"
#include "spx/core/types.hpp"

namespace spx {

/// A dense vector: pointer, length and space. `T` may be const.
template <class T>
struct VectorView {
  T* data = nullptr;
  std::int64_t size = 0;
  Space space = Space::Host;

  constexpr VectorView() = default;
  constexpr VectorView(T* p, std::int64_t n, Space s) : data(p), size(n), space(s) {}
  VectorView(Array<std::remove_const_t<T>>& a)  // NOLINT(google-explicit-constructor)
      : data(a.data()), size(static_cast<std::int64_t>(a.size())), space(a.space()) {}
  template <class U = T>
  requires std::is_const_v<U> VectorView(
      const Array<std::remove_const_t<T>>& a)  // NOLINT(google-explicit-constructor)
      : data(a.data()), size(static_cast<std::int64_t>(a.size())), space(a.space()) {}
  VectorView(std::vector<std::remove_const_t<T>>& v)  // NOLINT(google-explicit-constructor)
      : data(v.data()), size(static_cast<std::int64_t>(v.size())), space(Space::Host) {}
  template <class U = T>
  requires std::is_const_v<U> VectorView(
      const std::vector<std::remove_const_t<T>>& v)  // NOLINT(google-explicit-constructor)
      : data(v.data()), size(static_cast<std::int64_t>(v.size())), space(Space::Host) {}
  /// A mutable view converts to a const one.
  template <class U>
  requires(std::is_const_v<T>&& std::same_as<std::remove_const_t<T>, U>) constexpr VectorView(
      VectorView<U> v)  // NOLINT(google-explicit-constructor)
      : data(v.data), size(v.size), space(v.space) {}
};

template <class T>
VectorView<T> host_view(T* p, std::int64_t n) {
  return {p, n, Space::Host};
}
template <class T>
VectorView<T> device_view(T* p, std::int64_t n) {
  return {p, n, Space::Device};
}

/// Dense matrix layout.
enum class Layout : std::uint8_t { RowMajor, ColMajor };

/// A dense matrix: pointer, shape, leading dimension, layout and space.
template <class T>
struct DenseView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t ld = 0;  ///< distance between rows (row-major) or columns (col-major)
  Layout layout = Layout::RowMajor;
  Space space = Space::Host;
};

}  // namespace spx
