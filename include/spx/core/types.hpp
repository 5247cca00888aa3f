// Value and index types, memory spaces and backends.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

namespace spx {

/// Scalar types SpX computes in.
template <class T>
concept Value = std::same_as<T, float> || std::same_as<T, double>;

/// Index types of the sparse formats.
template <class I>
concept Index = std::same_as<I, std::int32_t> || std::same_as<I, std::int64_t>;

/// Where an array's memory lives.
enum class Space : std::uint8_t { Host, Device };

/// Which implementation family runs a kernel. The backend of a product is the
/// space of its matrix: host matrices run on `Cpu`, device matrices on `Cuda`.
enum class Backend : std::uint8_t { Cpu, Cuda };

constexpr Backend backend_of(Space s) noexcept {
  return s == Space::Host ? Backend::Cpu : Backend::Cuda;
}
constexpr Space space_of(Backend b) noexcept {
  return b == Backend::Cpu ? Space::Host : Space::Device;
}

constexpr std::string_view to_string(Space s) noexcept {
  return s == Space::Host ? "host" : "device";
}
constexpr std::string_view to_string(Backend b) noexcept {
  return b == Backend::Cpu ? "cpu" : "cuda";
}

template <Value T>
constexpr std::string_view type_name() noexcept {
  return std::same_as<T, float> ? "f32" : "f64";
}
template <Index I>
constexpr std::string_view index_name() noexcept {
  return std::same_as<I, std::int32_t> ? "i32" : "i64";
}

/// True when the built library contains the CUDA backend.
bool cuda_compiled() noexcept;
/// True when the CUDA backend is compiled in and a device is usable.
bool cuda_available() noexcept;

}  // namespace spx
