// SYM_CSR on the GPU: the atomic kernel against the reference on a large
// symmetric matrix (every lane width of the adaptive geometry: short and long
// rows, empty rows and columns, an empty diagonal), on every symmetric test
// matrix, over the (alpha, beta) grid with y NaN-poisoned for beta = 0, and
// what Auto reports. The device conversion: test_cuda_convert.cpp
// (SymCsrOnTheDevice). Every test needs a GPU: it skips without one, and fails
// instead when SPX_REQUIRE_GPU=1. SPX_TEST_SMALL=1 shrinks the matrices.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaSym);

/// A symmetric n×n matrix of `degree` entries below the diagonal per row
/// within a band of `band`, every 13th row and column empty, every 5th
/// diagonal entry absent, and a few rows reaching across the matrix.
template <Value T, Index I>
Csr<T, I> banded_symmetric(I n, int degree, I band, std::uint64_t seed) {
  std::vector<std::pair<I, I>> lower;
  std::uint64_t s = seed | 1;
  for (I i = 0; i < n; ++i) {
    if (i % 13 == 6) continue;
    if (i % 5 != 0) lower.push_back({i, i});
    for (int k = 0; k < degree && i > 0; ++k) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const I reach = std::min<I>(i, band);
      const I j =
          static_cast<I>(i - 1 - static_cast<I>((s >> 33) % static_cast<std::uint64_t>(reach)));
      if (j % 13 != 6) lower.push_back({i, j});
    }
    if (i % 4099 == 11)
      for (I j = 0; j < i; j += 7)
        if (j % 13 != 6) lower.push_back({i, j});
  }
  return symmetric_from_lower<T, I>(n, lower, seed);
}

template <Value T, Index I>
void check_on_device(const std::string& name, const Csr<T, I>& A) {
  const std::uint64_t seed = fresh_seed();
  const auto x = random_values<T>(A.cols(), seed);
  const auto y0 = random_values<T>(A.rows(), seed + 1);
  const Product product = reference::product(A, std::span<const T>(x));
  const SymCsr<T, I> dS = to_sym_csr(A).to(Space::Device);
  const auto kernels = cuda_kernels<T, I>(Format::SymCsr);
  ASSERT_FALSE(kernels.empty());
  for (const auto* k : kernels) {
    EXPECT_FALSE(k->info.deterministic);  // atomics
    matches_over_grid(kScalars, product, y0,
                      fmt::format("{} {}, seed={}", name, to_string(k->info.algorithm), seed),
                      on_device(dS, k->info.algorithm, x), reports_kernel(k->info));
  }
  // Auto reports the kernel that ran.
  RunInfo info;
  device_spmv(dS, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()), &info);
  EXPECT_EQ(info.format, Format::SymCsr);
  EXPECT_EQ(info.algorithm, Algorithm::Adaptive);
  EXPECT_EQ(info.backend, Backend::Cuda);
  EXPECT_FALSE(info.deterministic);
}

TYPED_TEST(CudaSym, MatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const I n = small_tests() ? 5000 : 300000;
  // Mean stored row lengths from about 1 to about 60: every lane width.
  for (int degree : {0, 3, 8, 20, 45, 70})
    check_on_device<T, I>(
        fmt::format("banded degree {}", degree),
        banded_symmetric<T, I>(degree > 20 ? n / 10 : n, degree, 400, fresh_seed()));
  for (auto& [name, A] : handmade_matrices<T, I>())
    if (name.starts_with("sym-") && A.nnz() > 0) check_on_device<T, I>(name, A);
}

}  // namespace
}  // namespace spx::test
