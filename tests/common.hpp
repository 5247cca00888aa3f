// Shared test fixtures: the type pairs every typed test runs over, random
// data, and the GPU gate.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "spx/core/types.hpp"

namespace spx::test {

template <class T, class I>
struct Types {
  using value_type = T;
  using index_type = I;
};
using TypePairs = ::testing::Types<Types<float, std::int32_t>, Types<float, std::int64_t>,
                                   Types<double, std::int32_t>, Types<double, std::int64_t>>;

/// Names typed-test instances "f32_i32", ... instead of 0, 1, ...
struct TypePairNames {
  template <class P>
  static std::string GetName(int) {
    return std::string(type_name<typename P::value_type>()) + "_" +
           std::string(index_name<typename P::index_type>());
  }
};

/// A fresh random seed per run (printed on failure through SCOPED_TRACE by
/// the callers), so that tests do not pass on one lucky draw.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// Values uniform in ±[0.5, 1.5]: never zero, mixed signs.
template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& e : v)
    e = static_cast<T>((gen() & 1 ? 1.0 : -1.0) * mag(gen));
  return v;
}

/// The folder of real matrices: $SPX_REAL_MATRICES when set (a copy of the
/// tree on another machine, as scripts/gpu-check makes), else the path
/// compiled in (../shared/matrices/real beside the checkout).
inline std::string real_matrix_dir() {
  const char* env = std::getenv("SPX_REAL_MATRICES");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(SPX_REAL_MATRICES);
}

inline bool gpu_required() {
  const char* v = std::getenv("SPX_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

/// Skips the current test when no GPU is usable, or fails it when
/// SPX_REQUIRE_GPU=1 (as scripts/gpu-check sets).
#define SPX_REQUIRE_GPU_OR_SKIP()                                                       \
  do {                                                                                  \
    if (!::spx::cuda_available()) {                                                     \
      if (::spx::test::gpu_required()) FAIL() << "SPX_REQUIRE_GPU=1 but no usable GPU"; \
      GTEST_SKIP() << "no usable GPU (CUDA backend "                                    \
                   << (::spx::cuda_compiled() ? "compiled" : "not compiled") << ")";    \
    }                                                                                   \
  } while (0)

}  // namespace spx::test
