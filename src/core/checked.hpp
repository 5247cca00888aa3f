// Overflow-checked size arithmetic for index types.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include "spx/core/error.hpp"
#include "spx/core/types.hpp"

namespace spx::detail {

/// `v` as index type I; throws InvalidInput naming `what` when it does not fit.
template <Index I>
I checked_index(std::int64_t v, std::string_view what) {
  if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<I>::max()))
    throw InvalidInput(fmt::format("index overflow: {} = {} does not fit the {} index type", what,
                                   v, index_name<I>()));
  return static_cast<I>(v);
}

/// a × b (`op` = '*') or a + b (`op` = '+') in 64 bits; on overflow throws
/// E "{prefix}size overflow: {what} = {a} x {b} exceeds 64 bits".
template <class E>
std::int64_t checked_arithmetic(char op, std::int64_t a, std::int64_t b, std::string_view prefix,
                                std::string_view what) {
  std::int64_t r = 0;
  if (op == '*' ? __builtin_mul_overflow(a, b, &r) : __builtin_add_overflow(a, b, &r))
    throw E(fmt::format("{}size overflow: {} = {} {} {} exceeds 64 bits", prefix, what, a,
                        op == '*' ? 'x' : '+', b));
  return r;
}

/// a × b, throwing InvalidInput naming `what` when the product overflows int64.
inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  return checked_arithmetic<InvalidInput>('*', a, b, "", what);
}

/// a + b, throwing InvalidInput naming `what` when the sum overflows int64.
inline std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view what) {
  return checked_arithmetic<InvalidInput>('+', a, b, "", what);
}

}  // namespace spx::detail
