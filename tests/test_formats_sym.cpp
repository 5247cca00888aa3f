// SYM_CSR: the lower triangle of a symmetric matrix. Exact round trips through
// CSR on every symmetric test matrix, the refusal of a matrix that is not
// square or not symmetric (naming the entry), the checking constructor's
// messages, the Matrix Market loader that keeps a symmetric file unexpanded,
// and the CPU kernels with several threads (the registry-wide tests run them
// on small matrices, which take one thread): every row range, the private
// buffers of the mirrors, beta = 0 with a NaN-poisoned y, determinism, and
// SpMM in both layouts. The CUDA kernel and conversion: test_cuda_sym.cpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/advisor.hpp"
#include "spx/convert.hpp"
#include "spx/io/matrix_market.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SymFormat);

/// Whether a host CSR is square and symmetric, entry by entry (the test's
/// own check, independent of the conversion's).
template <Value T, Index I>
bool is_symmetric(const Csr<T, I>& A) {
  if (A.rows() != A.cols()) return false;
  std::map<std::pair<std::int64_t, std::int64_t>, T> e;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    for (std::int64_t k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k)
      e[{i, A.col_idx()[k]}] = A.values()[k];
  for (const auto& [ij, v] : e) {
    const auto it = e.find({ij.second, ij.first});
    if (it == e.end() || !(it->second == v)) return false;
  }
  return true;
}

/// A larger symmetric matrix whose CPU product takes several threads: a 2D
/// 9-point pattern on a g×g grid with random symmetric values, every 11th row
/// and column empty, a few long rows reaching back to the first rows.
template <Value T, Index I>
Csr<T, I> large_symmetric(I g, std::uint64_t seed) {
  std::vector<std::pair<I, I>> lower;
  const I n = g * g;
  for (I y = 0; y < g; ++y)
    for (I x = 0; x < g; ++x) {
      const I i = y * g + x;
      if (i % 11 == 5) continue;
      const auto put = [&](I j) {
        if (j >= 0 && j % 11 != 5) lower.push_back({i, j});
      };
      put(i);
      if (x > 0) put(i - 1);
      if (y > 0) {
        put(i - g);
        if (x > 0) put(i - g - 1);
        if (x + 1 < g) put(i - g + 1);
      }
      if (i % 997 == 3)
        for (I j = 0; j < i; j += 37)
          put(j);
    }
  return symmetric_from_lower<T, I>(n, lower, seed);
}

TYPED_TEST(SymFormat, RoundTripIsExactOnSymmetricTestMatrices) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  int symmetric = 0;
  for (auto& [name, A] : all_test_matrices<T, I>()) {
    SCOPED_TRACE(name);
    if (!is_symmetric(A)) {
      EXPECT_THROW(to_sym_csr(A), Unsupported);
      continue;
    }
    ++symmetric;
    const SymCsr<T, I> S = to_sym_csr(A);
    EXPECT_EQ(S.rows(), A.rows());
    EXPECT_EQ(S.cols(), A.cols());
    EXPECT_EQ(S.nnz(), A.nnz());
    // Stored: the entries with column <= row.
    std::int64_t lower = 0, diagonal = 0;
    for (std::int64_t i = 0; i < A.rows(); ++i)
      for (std::int64_t k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k) {
        lower += A.col_idx()[k] <= i;
        diagonal += A.col_idx()[k] == i;
      }
    EXPECT_EQ(S.stored(), lower);
    EXPECT_EQ(S.diagonal_entries(), diagonal);
    EXPECT_EQ(S.bytes(), static_cast<std::size_t>(A.rows() + 1) * sizeof(I) +
                             static_cast<std::size_t>(lower) * (sizeof(I) + sizeof(T)));
    // The checking constructor accepts what the conversion built.
    const SymCsr<T, I> again(S.rows(), S.row_ptr().clone(), S.col_idx().clone(),
                             S.values().clone());
    EXPECT_EQ(again.nnz(), S.nnz());
    expect_same_csr(to_csr(S), A, name);
    expect_same_csr(to_csr(S.clone()), A, name + " (clone)");
  }
  EXPECT_GE(symmetric, 7);  // 0x0, 1x1, empty, diagonal, and the sym-* matrices
}

TYPED_TEST(SymFormat, RefusesWhatIsNotSymmetric) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Not square.
  const Csr<T, I> wide(2, 3, Array<I>{0, 1, 2}, Array<I>{0, 2}, Array<T>{1, 2});
  expect_error<Unsupported>([&] { (void)to_sym_csr(wide); }, {"SYM_CSR", "2x3", "not square"});
  // Values differ: a(2, 0) = 3 but a(0, 2) = 2.
  const Csr<T, I> values(3, 3, Array<I>{0, 2, 3, 5}, Array<I>{0, 2, 1, 0, 2},
                         Array<T>{1, 2, 5, 3, 4});
  expect_error<Unsupported>([&] { (void)to_sym_csr(values); },
                            {"not symmetric", "a(0, 2) = 2", "a(2, 0) = 3"});
  // An entry above the diagonal without its mirror.
  const Csr<T, I> upper(3, 3, Array<I>{0, 2, 3, 4}, Array<I>{0, 1, 1, 2}, Array<T>{1, 2, 5, 4});
  expect_error<Unsupported>([&] { (void)to_sym_csr(upper); },
                            {"a(0, 1) = 2 is stored but a(1, 0) is not"});
  // An entry below the diagonal without its mirror.
  const Csr<T, I> lower(3, 3, Array<I>{0, 1, 2, 4}, Array<I>{0, 1, 0, 2}, Array<T>{1, 5, 7, 4});
  expect_error<Unsupported>([&] { (void)to_sym_csr(lower); },
                            {"a(2, 0) = 7 is stored but a(0, 2) is not"});
  // The registry-wide users see the same through convert().
  expect_error<Unsupported>([&] { (void)convert(lower, Format::SymCsr); }, {"SYM_CSR"});
}

TYPED_TEST(SymFormat, ConstructorValidates) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using S = SymCsr<T, I>;
  // [2 . 1; . 0 .; 1 . 3] with an explicit zero on the diagonal; row 1 has
  // only its diagonal, and it is stored.
  const S ok(3, Array<I>{0, 1, 2, 4}, Array<I>{0, 1, 0, 2}, Array<T>{2, 0, 1, 3});
  EXPECT_EQ(ok.nnz(), 5);
  EXPECT_EQ(ok.stored(), 4);
  EXPECT_EQ(ok.diagonal_entries(), 3);
  const Csr<T, I> full = to_csr(ok);
  EXPECT_EQ(full.row_ptr().to_vector(), (std::vector<I>{0, 2, 3, 5}));
  EXPECT_EQ(full.col_idx().to_vector(), (std::vector<I>{0, 2, 1, 0, 2}));
  EXPECT_EQ(full.values().to_vector(), (std::vector<T>{2, 1, 0, 1, 3}));
  // No diagonal at all.
  const S hollow(3, Array<I>{0, 0, 1, 2}, Array<I>{0, 1}, Array<T>{4, 5});
  EXPECT_EQ(hollow.nnz(), 4);
  EXPECT_EQ(hollow.diagonal_entries(), 0);
  expect_error(
      [] {
        S(2, Array<I>{0, 1, 2}, Array<I>{0, 1}, Array<T>{1});
      },
      {"SYM_CSR", "col_idx has 2 entries but values has 1"});
  expect_error(
      [] {
        S(2, Array<I>{0, 1}, Array<I>{0}, Array<T>{1});
      },
      {"SYM_CSR", "row_ptr has 2 entries, expected rows + 1 = 3"});
  expect_error(
      [] {
        S(2, Array<I>{0, 2, 2}, Array<I>{0, 1}, Array<T>{1, 2});
      },
      {"SYM_CSR", "col_idx[1] = 1 in row 0 lies above the diagonal"});
  expect_error(
      [] {
        S(2, Array<I>{0, 1, 3}, Array<I>{0, 1, 0}, Array<T>{1, 2, 3});
      },
      {"SYM_CSR", "not strictly increasing"});
  expect_error(
      [] {
        S(2, Array<I>{0, 1, 2}, Array<I>{0, 2}, Array<T>{1, 2});
      },
      {"SYM_CSR", "col_idx[1] = 2", "out of range [0, 2)"});
  expect_error([] { S(-1, Array<I>{0}, Array<I>{}, Array<T>{}); }, {"SYM_CSR", "negative shape"});
}

TYPED_TEST(SymFormat, MatrixMarketSymmetricFileStaysUnexpanded) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::string head = "%%MatrixMarket matrix coordinate real symmetric\n% c\n";
  // Lower triangle of [4 1 . 2; 1 5 . .; . . . 3; 2 . 3 6], row 2's diagonal
  // absent, a duplicate (4,4) summed.
  const std::string body = "4 4 7\n1 1 4\n2 1 1\n2 2 5\n4 1 2\n4 3 3\n4 4 2.5\n4 4 3.5\n";
  const SymCsr<T, I> S = io::parse_sym_csr<T, I>(head + body, "s.mtx");
  EXPECT_EQ(S.rows(), 4);
  EXPECT_EQ(S.stored(), 6);
  EXPECT_EQ(S.nnz(), 9);
  EXPECT_EQ(S.row_ptr().to_vector(), (std::vector<I>{0, 1, 3, 3, 6}));
  EXPECT_EQ(S.col_idx().to_vector(), (std::vector<I>{0, 0, 1, 0, 2, 3}));
  EXPECT_EQ(S.values().to_vector(), (std::vector<T>{4, 1, 5, 2, 3, 6}));
  // The same as the expanded reading, converted.
  const Csr<T, I> expanded = to_csr(io::parse_coo<T, I>(head + body, "s.mtx"));
  expect_same_csr(to_csr(S), expanded, "expanded");
  // An entry above the diagonal: an error by the NIST rules (the default) ...
  const std::string up = "3 3 2\n1 1 1\n1 3 2\n";
  try {
    (void)io::parse_sym_csr<T, I>(head + up, "up.mtx");
    ADD_FAILURE() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_CONTAINS(e.what(), "up.mtx:");
  }
  // ... or read as its mirror when the caller allows either triangle.
  io::MmReadOptions either = io::sym_read_options();
  either.lower_triangle_only = false;
  const SymCsr<T, I> mirrored = io::parse_sym_csr<T, I>(head + up, "up.mtx", either);
  EXPECT_EQ(mirrored.col_idx().to_vector(), (std::vector<I>{0, 0}));
  EXPECT_EQ(mirrored.row_ptr().to_vector(), (std::vector<I>{0, 1, 1, 2}));
  // A general file that is symmetric converts; one that is not is refused.
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  const SymCsr<T, I> g = io::parse_sym_csr<T, I>(general + "2 2 3\n1 1 1\n1 2 7\n2 1 7\n", "g.mtx");
  EXPECT_EQ(g.stored(), 2);
  EXPECT_EQ(g.nnz(), 3);
  expect_error<Unsupported>(
      [&] { (void)io::parse_sym_csr<T, I>(general + "2 2 2\n1 2 7\n2 1 8\n", "g.mtx"); },
      {"not symmetric", "a(0, 1) = 7", "a(1, 0) = 8"});
  // A skew-symmetric file cannot be held.
  expect_error<Unsupported>(
      [&] {
        (void)io::parse_sym_csr<T, I>(
            "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", "k.mtx");
      },
      {"k.mtx", "skew-symmetric"});
  // Pattern: ones.
  const SymCsr<T, I> p = io::parse_sym_csr<T, I>(
      "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n", "p.mtx");
  EXPECT_EQ(p.values().to_vector(), (std::vector<T>{1, 1}));
  EXPECT_EQ(p.nnz(), 3);
}

/// y = alpha·A·x + beta·y with SYM_CSR on the CPU against the reference, for
/// several thread counts, the grid of (alpha, beta) (y NaN when beta = 0).
template <Value T, Index I>
void check_spmv_threads(const std::string& name, const Csr<T, I>& A) {
  const SymCsr<T, I> S = to_sym_csr(A);
  const std::uint64_t seed = fresh_seed();
  const auto x = random_values<T>(A.cols(), seed);
  const auto y0 = random_values<T>(A.rows(), seed + 1);
  const Product product = reference::product(A, std::span<const T>(x));
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3, 8}) {
    omp_set_num_threads(threads);
    const std::string label = fmt::format("{}, {} threads, seed={}", name, threads, seed);
    matches_over_grid(kScalars, product, y0, label, on_host(S, x),
                      [](const RunInfo& info, const std::string& what) {
                        EXPECT_EQ(info.format, Format::SymCsr) << what;
                      });
    // Deterministic for a given thread count.
    std::vector<T> a(y0), b(y0);
    spmv(T{1.5}, S, x, T{-0.5}, a);
    spmv(T{1.5}, S, x, T{-0.5}, b);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << label;
  }
  omp_set_num_threads(saved);
}

TYPED_TEST(SymFormat, CpuSpmvOverThreadsMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  check_spmv_threads<T, I>("large-symmetric", large_symmetric<T, I>(160, fresh_seed()));
  for (auto& [name, A] : handmade_matrices<T, I>())
    if (name.starts_with("sym-") && A.rows() > 0) check_spmv_threads<T, I>(name, A);
  // A wider arrow: every row's mirror goes to row 0, far before every range.
  std::vector<std::pair<I, I>> arrow;
  for (I i = 0; i < 60000; ++i) {
    arrow.push_back({i, 0});
    if (i % 2 == 0) arrow.push_back({i, i});
  }
  check_spmv_threads<T, I>("arrow-60000", symmetric_from_lower<T, I>(60000, arrow, fresh_seed()));
}

/// Called from inside a parallel region (nested parallelism off), the
/// kernel's region gets one thread for the ranges it planned for several:
/// that thread takes them all.
TYPED_TEST(SymFormat, CpuSpmvInsideAParallelRegion) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = large_symmetric<T, I>(160, fresh_seed());
  const SymCsr<T, I> S = to_sym_csr(A);
  const auto x = random_values<T>(A.cols(), 3);
  const Expected<T> want =
      expected_spmv<T, I>(T{2}, A, std::span<const T>(x), T{0}, std::span<const T>(x));
  const int saved_threads = omp_get_max_threads(), saved_levels = omp_get_max_active_levels();
  omp_set_num_threads(4);
  omp_set_max_active_levels(1);
  std::vector<T> y(static_cast<std::size_t>(A.rows()), std::numeric_limits<T>::quiet_NaN());
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) spmv(T{2}, S, x, T{0}, y);
  }
  omp_set_max_active_levels(saved_levels);
  omp_set_num_threads(saved_threads);
  expect_matches(y, want, "inside a parallel region");
}

TYPED_TEST(SymFormat, CpuSpmmBothLayoutsMatchReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = large_symmetric<T, I>(120, fresh_seed());
  const SymCsr<T, I> S = to_sym_csr(A);
  const std::int64_t m = A.rows(), n = 5;
  const std::uint64_t seed = fresh_seed();
  const auto B = random_values<T>(m * n, seed);  // row-major, tight
  const auto C0 = random_values<T>(m * n, seed + 1);
  const Product product = reference::product(A, std::span<const T>(B), n);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    for (const Layout lb : {Layout::RowMajor, Layout::ColMajor})
      for (const Layout lc : {Layout::RowMajor, Layout::ColMajor})
        for (const auto [a, b] : kScalars.first(4)) {
          const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
          const std::string what = fmt::format("threads={} B {} C {} alpha={} beta={} seed={}",
                                               threads, lb == Layout::RowMajor ? "row" : "col",
                                               lc == Layout::RowMajor ? "row" : "col", a, b, seed);
          // B and C in their layouts, with padding (ld larger than tight).
          const std::int64_t ldb = lb == Layout::RowMajor ? n + 3 : m + 2;
          const std::int64_t ldc = lc == Layout::RowMajor ? n + 1 : m + 5;
          const auto at = [](Layout l, std::int64_t ld, std::int64_t i, std::int64_t j) {
            return l == Layout::RowMajor ? i * ld + j : i + j * ld;
          };
          std::vector<T> b_data(static_cast<std::size_t>((lb == Layout::RowMajor ? m : n) * ldb));
          std::vector<T> c_data(static_cast<std::size_t>((lc == Layout::RowMajor ? m : n) * ldc),
                                std::numeric_limits<T>::quiet_NaN());
          for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
              b_data[at(lb, ldb, i, j)] = B[i * n + j];
              if (b != 0) c_data[at(lc, ldc, i, j)] = C0[i * n + j];
            }
          spmm(alpha, S, DenseView<const T>{b_data.data(), m, n, ldb, lb}, beta,
               DenseView<T>{c_data.data(), m, n, ldc, lc});
          std::vector<T> got(static_cast<std::size_t>(m * n));
          for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j)
              got[i * n + j] = c_data[at(lc, ldc, i, j)];
          expect_matches(got, expected<T>(product, alpha, beta, C0), what);
        }
  }
  omp_set_num_threads(saved);
}

TYPED_TEST(SymFormat, AutoPicksTheCpuKernelAndAdvisorConsidersItOnlyWhenSymmetric) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = large_symmetric<T, I>(40, fresh_seed());
  const auto x = random_values<T>(A.cols(), 1);
  std::vector<T> y(A.rows(), std::numeric_limits<T>::quiet_NaN());
  const RunInfo info = spmv(T{1}, to_sym_csr(A), x, T{0}, y);
  EXPECT_EQ(info.format, Format::SymCsr);
  EXPECT_EQ(info.algorithm, Algorithm::CpuRows);
  EXPECT_TRUE(info.deterministic);

  // The advisor: a feasible candidate with half CSR's entries for the
  // symmetric matrix; refused, with the reason, for one that is not.
  AdvisorOptions options;
  options.bandwidth_gbs = 10;
  options.compute_scale = 1;
  const Advice adv = advise(A, Workload{.products = 100}, options);
  int seen = 0;
  for (const Candidate& c : adv.candidates)
    if (c.format == Format::SymCsr) {
      ++seen;
      EXPECT_TRUE(c.feasible) << c.reason;
      EXPECT_EQ(c.bytes, static_cast<std::int64_t>(to_sym_csr(A).bytes()));
    }
  EXPECT_EQ(seen, 1);
  const Csr<T, I> B(2, 2, Array<I>{0, 2, 3}, Array<I>{0, 1, 1}, Array<T>{1, 2, 3});
  const Advice bad = advise(B, Workload{.products = 100}, options);
  for (const Candidate& c : bad.candidates)
    if (c.format == Format::SymCsr) {
      EXPECT_FALSE(c.feasible);
      EXPECT_CONTAINS(c.reason, "not symmetric");
    }
}

/// A plan forced to SYM_CSR runs it and takes new (symmetric) values in
/// place: the map from its slots to CSR positions is the lower prefix of
/// every row.
TYPED_TEST(SymFormat, PlanUpdatesValues) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = large_symmetric<T, I>(30, seed);
  const Csr<T, I> A2 = large_symmetric<T, I>(30, seed + 7);  // same pattern, new values
  ASSERT_EQ(A2.col_idx().to_vector(), A.col_idx().to_vector());
  const auto x = random_values<T>(A.cols(), seed + 1);
  PlanOptions po;
  po.bandwidth_gbs = 20;
  po.compute_scale = 1;
  po.format = Format::SymCsr;
  Workload w;
  w.products = 10;
  Plan<T, I> plan(A, w, po);
  EXPECT_EQ(plan.report().format, Format::SymCsr);
  for (const Csr<T, I>* M : {&A, &A2}) {
    if (M == &A2) plan.update_values(std::span<const T>(M->values().data(), M->nnz()));
    std::vector<T> y(static_cast<std::size_t>(A.rows()), std::numeric_limits<T>::quiet_NaN());
    const RunInfo ran = plan.run(T{1}, x, T{0}, y);
    EXPECT_EQ(ran.format, Format::SymCsr);
    const Expected<T> want = expected<T>(reference::product(*M, std::span<const T>(x)), T{1}, T{0},
                                         std::span<const T>(y));
    expect_matches(y, want, M == &A ? "before the update" : "after the update");
  }
}

}  // namespace
}  // namespace spx::test
