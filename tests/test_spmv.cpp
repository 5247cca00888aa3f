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
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/batch/ops.hpp"
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
            reports_kernel(kernel.info), stored_value_roundoff<T>(f));
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

/// Runs A through spmv, spmm (two columns) and batch_spmv (a batch of A
/// alone) with y = C = 2 and beta = 0.5; checks that each reports
/// `trivial` as expected and that y and C are beta*2 = 1 when trivial.
template <Value T, Index I>
void expect_trivial(const Csr<T, I>& A, T alpha, bool trivial, const std::string& what) {
  SCOPED_TRACE(what);
  const std::int64_t m = A.rows(), n = A.cols();
  const std::vector<T> x(static_cast<std::size_t>(n), T{1});
  const std::vector<T> B(static_cast<std::size_t>(2 * n), T{1});
  std::vector<T> y(static_cast<std::size_t>(m), T{2}), C(static_cast<std::size_t>(2 * m), T{2});
  std::vector<T> y_batch = y;
  const auto batch = BatchCsr<T, I>::from_matrices(std::span<const Csr<T, I>>(&A, 1));

  const RunInfo infos[] = {
      spmv(alpha, A, x, T{0.5}, y),
      spmm(alpha, A, DenseView<const T>{B.data(), n, 2, 2, Layout::RowMajor, Space::Host}, T{0.5},
           DenseView<T>{C.data(), m, 2, 2, Layout::RowMajor, Space::Host}),
      batch_spmv(alpha, batch, x, T{0.5}, y_batch)};
  for (const RunInfo& info : infos) {
    EXPECT_EQ(info.trivial, trivial);
    EXPECT_EQ(info.format, Format::Csr);
    EXPECT_EQ(info.backend, Backend::Cpu);
    EXPECT_NE(info.algorithm, Algorithm::Auto);  // resolved, also when trivial
    if (trivial) {
      EXPECT_TRUE(info.deterministic);
    }
  }
  if (!trivial) return;
  for (const auto* out : {&y, &C, &y_batch})
    for (T v : *out)
      EXPECT_EQ(v, T{1});
}

// RunInfo as the one pipeline (src/core/dispatch.hpp) fills it: spmv, spmm
// and batch_spmv report a product that needs no kernel (no rows, no
// nonzeros, alpha = 0) the same way, as ops.hpp documents.
TYPED_TEST(SpmvKernels, TrivialProductsReportAlikeInEveryOperation) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  expect_trivial(Csr<T, I>(), T{1}, true, "0x0");
  expect_trivial(Csr<T, I>(3, 4, Array<I>{0, 0, 0, 0}, Array<I>{}, Array<T>{}), T{1}, true,
                 "3x4 without nonzeros");
  const Csr<T, I> A(2, 3, Array<I>{0, 1, 2}, Array<I>{0, 2}, Array<T>{1, 2});
  expect_trivial(A, T{0}, true, "alpha = 0");
  expect_trivial(A, T{1}, false, "2x3 with nonzeros");
}

}  // namespace
}  // namespace spx::test
