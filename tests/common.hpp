// Shared test fixtures: the type pairs every typed test runs over, random
// data, the (alpha, beta) grid, exception messages, and the GPU gate.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "reference/reference.hpp"
#include "spx/core/error.hpp"
#include "spx/core/types.hpp"
#include "spx/formats/csr.hpp"

// SPX_TEST_ASAN: the build has AddressSanitizer (g++ and clang spell it
// differently); kAddressSanitizer the same as a constant.
#if defined(__SANITIZE_ADDRESS__)
#define SPX_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPX_TEST_ASAN 1
#endif
#endif

namespace spx::test {

#ifdef SPX_TEST_ASAN
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

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

/// Declares the typed test suite `Name` (an empty fixture) over TypePairs,
/// its instances named by TypePairNames.
#define SPX_TYPED_TEST_SUITE(Name)        \
  template <class P>                      \
  class Name : public ::testing::Test {}; \
  TYPED_TEST_SUITE(Name, ::spx::test::TypePairs, ::spx::test::TypePairNames)

/// A fresh random seed per run (printed on failure through SCOPED_TRACE by
/// the callers), so that tests do not pass on one lucky draw.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

/// Values uniform in ±[0.5, 1.5]: never zero, mixed signs (the benchmark's
/// operands too).
using reference::random_values;

/// The (alpha, beta) grid of the kernel tests: beta = 0 first (y poisoned
/// with NaN before it: a kernel must not read y), then general scalars,
/// alpha != 1 with beta = 0, and alpha = 0. Tests that run fewer pairs take a
/// prefix: kScalars.first(2) or first(3) (the GPU stress tests), first(4).
struct Scalars {
  double alpha, beta;
};
inline constexpr Scalars kScalarGrid[] = {{1.0, 0.0}, {2.5, -0.5}, {-1.0, 1.0},
                                          {0.5, 0.0}, {0.0, 1.5},  {0.0, 0.0}};
inline constexpr std::span<const Scalars> kScalars{kScalarGrid};

/// The message of the exception E that `f` throws; a failure (and "") when
/// it throws nothing or another type.
template <class E = InvalidInput, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

/// Whether `text` contains `part` (with both in the failure message).
inline ::testing::AssertionResult contains(std::string_view text, std::string_view part) {
  if (text.find(part) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}
#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(::spx::test::contains((text), (part)))

/// Expects `f` to throw E with a message that contains every one of `parts`.
template <class E = InvalidInput, class F>
void expect_error(F&& f, std::initializer_list<std::string_view> parts) {
  const std::string msg = message_of<E>(std::forward<F>(f));
  for (const std::string_view part : parts)
    EXPECT_CONTAINS(msg, part);
}

/// Arrays equal bit for bit (so −0.0 ≠ +0.0 and NaN payloads show); reports
/// the first difference.
template <class T>
void expect_bitwise_equal(const Array<T>& got, const Array<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const auto g = got.to_vector(), w = want.to_vector();
  for (std::size_t k = 0; k < g.size(); ++k)
    if (std::memcmp(&g[k], &w[k], sizeof(T)) != 0) {
      ADD_FAILURE() << what << ": entry " << k << " is " << g[k] << ", expected " << w[k];
      return;
    }
}

/// Two CSR matrices equal: shapes, and every array bit for bit.
template <Value T, Index I>
void expect_same_csr(const Csr<T, I>& got, const Csr<T, I>& want, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  expect_bitwise_equal(got.row_ptr(), want.row_ptr(), what + " row_ptr");
  expect_bitwise_equal(got.col_idx(), want.col_idx(), what + " col_idx");
  expect_bitwise_equal(got.values(), want.values(), what + " values");
}

/// The folder of real matrices: bench::default_real_dir() ($SPX_REAL_MATRICES
/// when set, as scripts/gpu-check sets it for a copy of the tree; else
/// where `spx bench` looks).
std::string real_matrix_dir();

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
