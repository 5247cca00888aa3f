// The reduced-precision value storage shared by SELL-LP (sell_lp.hpp) and
// DIA-LP (dia_lp.hpp): the storage type (float for double, bfloat16 bits for
// float), the rounding to it and back, the overflow test the conversions
// refuse on, and the unit roundoff their documented error bound uses
// (derived in sell_lp.hpp; DIA-LP's is the same).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "spx/core/enums.hpp"
#include "spx/core/types.hpp"

namespace spx {

/// The type the reduced-precision formats (SellLp, DiaLp) store their values
/// in: float for double, bfloat16 bits (std::uint16_t) for float.
template <Value T>
using reduced_value_t = std::conditional_t<std::is_same_v<T, double>, float, std::uint16_t>;

namespace lowp {

/// Unit roundoff u_s of reduced_value_t<T>: 2^-24 (float), 2^-8 (bfloat16).
template <Value T>
inline constexpr double kUnitRoundoff = std::is_same_v<T, double> ? 0x1p-24 : 0x1p-8;
/// The absolute rounding of a value in the storage type's subnormal range:
/// half its smallest subnormal (2^-150 for float, 2^-134 for bfloat16).
template <Value T>
inline constexpr double kSubnormalError = std::is_same_v<T, double> ? 0x1p-150 : 0x1p-134;
/// Largest finite value of the storage type.
template <Value T>
inline constexpr double kLargest = std::is_same_v<T, double>
                                       ? static_cast<double>(std::numeric_limits<float>::max())
                                       : 0x1.FEp127;
/// The storage type's name in messages.
template <Value T>
inline constexpr const char* kStorageName = std::is_same_v<T, double> ? "float" : "bfloat16";

/// float → bfloat16 bits, round to nearest, ties to even; NaN stays a
/// (quiet) NaN with its sign, ±inf stays ±inf, a finite value past the
/// largest bfloat16 becomes ±inf.
constexpr std::uint16_t to_bf16(float f) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);
  const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(rounded >> 16);
}
/// bfloat16 bits → float (exact).
constexpr float from_bf16(std::uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

/// T → storage, round to nearest even (double → float: the IEEE conversion
/// of the default rounding mode).
template <Value T>
constexpr reduced_value_t<T> narrow(T v) noexcept {
  if constexpr (std::is_same_v<T, double>)
    return static_cast<float>(v);
  else
    return to_bf16(v);
}
/// Storage → T (exact).
template <Value T>
constexpr T widen(reduced_value_t<T> s) noexcept {
  if constexpr (std::is_same_v<T, double>)
    return static_cast<double>(s);
  else
    return from_bf16(s);
}
/// True when a finite v rounds past the storage type's range (the
/// conversion refuses it).
template <Value T>
constexpr bool overflows(T v) noexcept {
  const T w = widen<T>(narrow<T>(v));
  return v - v == T{0} && w - w != T{0};  // v finite, its rounding not
}

}  // namespace lowp

/// Formats whose values are stored in reduced precision (opt-in only):
/// SELL-LP and DIA-LP.
constexpr bool reduced_precision(Format f) noexcept {
  return f == Format::SellLp || f == Format::DiaLp;
}
/// The unit roundoff of the values a format stores, relative to the vectors'
/// type T: 0 for every full-precision format, lowp::kUnitRoundoff<T> for
/// SELL-LP and DIA-LP. The error bound of a product adds |α|·u_s·Σ|a x|
/// (sell_lp.hpp).
template <Value T>
constexpr double stored_value_roundoff(Format f) noexcept {
  return reduced_precision(f) ? lowp::kUnitRoundoff<T> : 0.0;
}

}  // namespace spx
