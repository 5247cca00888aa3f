// SpMV kernel tests: every registered kernel, every backend present, every
// format convertible in this build, on every test matrix, over a grid of
// (alpha, beta), against the long-double reference. y is poisoned with NaN
// before every beta = 0 run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SpmvKernels);

/// Runs every kernel of `backend` on every matrix; returns how many
/// (matrix, kernel) pairs ran, per format.
template <Value T, Index I>
std::map<Format, int> run_all(Backend backend) {
  const auto& registry = Registry<T, I>::instance();
  std::map<Format, int> ran;
  const Space space = space_of(backend);
  for (auto& [name, A] : all_test_matrices<T, I>()) {
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    for (Format f : kAllFormats) {
      if (!convertible(f)) continue;
      Matrix<T, I> host_m;
      try {
        host_m = convert(A, f);
      } catch (const Unsupported& e) {
        std::printf("[  SKIP    ] %s as %s: %s\n", name.c_str(), std::string(to_string(f)).c_str(),
                    e.what());
        continue;
      }
      const Matrix<T, I> m =
          std::visit([&](const auto& a) { return Matrix<T, I>(a.to(space)); }, host_m);
      Array<T> dx = Array<T>(x).to(space);
      for (const auto& kernel : registry.spmv_kernels()) {
        if (kernel.info.format != f || kernel.info.backend != backend) continue;
        const std::string reason = kernel.can_run(ref(m));
        if (!reason.empty()) {
          std::printf("[  SKIP    ] %s %s/%s: %s\n", name.c_str(),
                      std::string(to_string(f)).c_str(),
                      std::string(to_string(kernel.info.algorithm)).c_str(), reason.c_str());
          continue;
        }
        const std::string label =
            fmt::format("{} as {}, {} on {}, seed={}", name, to_string(f),
                        to_string(kernel.info.algorithm), to_string(backend), seed);
        const bool passed = matches_over_grid(
            kScalars, product, y0, label,
            [&](T alpha, T beta, const std::vector<T>& y_init) {
              Array<T> dy = Array<T>(y_init).to(space);
              SpmvOptions opts;
              opts.algorithm = kernel.info.algorithm;
              const RunInfo info = spmv(alpha, m, dx, beta, dy, opts);
              return Ran<T>{dy.to_vector(), info};
            },
            reports_kernel(kernel.info));
        if (!passed) return ran;
        ++ran[f];
      }
    }
  }
  return ran;
}

TYPED_TEST(SpmvKernels, CpuMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  expect_every_convertible_format_ran(run_all<T, I>(Backend::Cpu));
}

TYPED_TEST(SpmvKernels, CudaMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto ran = run_all<T, I>(Backend::Cuda);
  int total = 0;
  for (auto& [f, n] : ran)
    total += n;
  EXPECT_GT(total, 0) << "no CUDA kernel ran";
}

TYPED_TEST(SpmvKernels, AutoReportsTheKernelThatRan) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : handmade_matrices<T, I>()) {
    const auto x = random_values<T>(A.cols(), 7);
    std::vector<T> y(A.rows(), std::numeric_limits<T>::quiet_NaN());
    const RunInfo info = spmv(T{1}, A, x, T{0}, y);
    EXPECT_NE(info.algorithm, Algorithm::Auto) << name;
    EXPECT_EQ(info.format, Format::Csr) << name;
    EXPECT_EQ(info.backend, Backend::Cpu) << name;
  }
}

TYPED_TEST(SpmvKernels, ValidatesOperands) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = handmade_matrices<T, I>();
  const auto it = std::ranges::find(mats, std::string("wide-40x3000"), &TestMatrix<T, I>::name);
  ASSERT_NE(it, mats.end());
  const auto& A = it->A;
  ASSERT_EQ(A.rows(), 40);
  std::vector<T> x(A.cols(), T{1}), y(A.rows(), T{0}), short_x(A.cols() - 1, T{1});
  try {
    spmv(T{1}, A, short_x, T{0}, y);
    ADD_FAILURE() << "expected DimensionMismatch";
  } catch (const DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("40x3000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2999"), std::string::npos) << e.what();
  }
  EXPECT_THROW(spmv(T{1}, A, x, T{0}, x), DimensionMismatch);
  SpmvOptions bad;
  bad.algorithm = Algorithm::Scalar;  // a GPU algorithm on a host matrix
  EXPECT_THROW(spmv(T{1}, A, x, T{0}, y, bad), Unsupported);
  // A device vector with a host matrix.
  EXPECT_THROW(spmv(T{1}, A, VectorView<const T>(x.data(), A.cols(), Space::Device), T{0}, y),
               InvalidInput);
}

}  // namespace
}  // namespace spx::test
