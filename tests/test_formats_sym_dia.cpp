// SYM_DIA: the diagonals of offset <= 0 of a symmetric matrix. Exact round
// trips through CSR on the symmetric test matrices and the generator's
// symmetric stencils and FEM matrices (an empty diagonal and empty rows
// included), the refusal of a matrix that is not square or not symmetric
// (naming the entry) and of too many diagonals (DIA's budget), the checking
// constructor's messages, the CPU kernels (SpMV over several thread counts
// and SpMM) and the CUDA kernel against the reference over the (alpha, beta)
// grid with y NaN-poisoned for beta = 0. The CUDA tests skip without a GPU,
// and fail instead when SPX_REQUIRE_GPU=1.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/advisor.hpp"
#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SymDiaFormat);

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

/// The generator's symmetric members (values symmetric too).
template <Value T, Index I>
std::vector<std::pair<std::string, Csr<T, I>>> generated_symmetric() {
  std::vector<std::pair<std::string, Csr<T, I>>> out;
  for (const char* spec : {"stencil3d:n=7,symmetric=1", "fem:n=6,block=3,symmetric=1",
                           "stencil2d:n=13,points=9,symmetric=1"})
    out.emplace_back(spec, generate<T, I>(parse_gen_spec(spec)));
  return out;
}

/// A banded symmetric matrix without any diagonal entry (offsets -1, -3,
/// -40), every 7th row and column empty.
template <Value T, Index I>
Csr<T, I> hollow_band(I n, std::uint64_t seed) {
  std::vector<std::pair<I, I>> lower;
  for (I i = 0; i < n; ++i) {
    if (i % 7 == 3) continue;
    for (I d : {1, 3, 40})
      if (i >= d && (i - d) % 7 != 3) lower.push_back({i, static_cast<I>(i - d)});
  }
  return symmetric_from_lower<T, I>(n, lower, seed);
}

/// A banded symmetric matrix with a partly empty diagonal and empty rows
/// (every 11th), and entries on offsets -1, -2, -17, -300.
template <Value T, Index I>
Csr<T, I> band_with_empty_rows(I n, std::uint64_t seed) {
  std::vector<std::pair<I, I>> lower;
  for (I i = 0; i < n; ++i) {
    if (i % 11 == 5) continue;
    if (i % 3 != 0) lower.push_back({i, i});
    for (I d : {1, 2, 17, 300})
      if (i >= d && (i - d) % 11 != 5) lower.push_back({i, static_cast<I>(i - d)});
  }
  return symmetric_from_lower<T, I>(n, lower, seed);
}

/// Whether DIA's budget refuses SYM_DIA for A (a symmetric test matrix with
/// scattered diagonals, e.g. an arrow), which the tests then skip.
template <Value T, Index I>
bool over_budget(const Csr<T, I>& A) {
  try {
    (void)to_sym_dia(A);
    return false;
  } catch (const Unsupported& e) {
    EXPECT_CONTAINS(e.what(), "above the limit");
    return true;
  }
}

/// The symmetric matrices the kernel tests use.
template <Value T, Index I>
std::vector<std::pair<std::string, Csr<T, I>>> symmetric_cases() {
  auto out = generated_symmetric<T, I>();
  out.emplace_back("hollow band", hollow_band<T, I>(2000, fresh_seed()));
  out.emplace_back("band with empty rows", band_with_empty_rows<T, I>(3000, fresh_seed()));
  for (auto& [name, A] : handmade_matrices<T, I>())
    if (name.starts_with("sym-") && A.rows() > 0 && !over_budget(A))
      out.emplace_back(name, A.clone());
  return out;
}

template <Value T, Index I>
void check_round_trip(const std::string& name, const Csr<T, I>& A) {
  SCOPED_TRACE(name);
  const SymDia<T, I> S = to_sym_dia(A);
  EXPECT_EQ(S.rows(), A.rows());
  EXPECT_EQ(S.cols(), A.cols());
  EXPECT_EQ(S.nnz(), A.nnz());
  std::int64_t lower = 0, diagonal = 0;
  std::map<std::int64_t, int> offsets;
  for (std::int64_t i = 0; i < A.rows(); ++i)
    for (std::int64_t k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k)
      if (A.col_idx()[k] <= i) {
        ++lower;
        diagonal += A.col_idx()[k] == i;
        offsets[A.col_idx()[k] - i] = 1;
      }
  EXPECT_EQ(S.stored(), lower);
  EXPECT_EQ(S.diagonal_entries(), diagonal);
  EXPECT_EQ(S.ndiag(), static_cast<std::int64_t>(offsets.size()));
  for (const I o : S.offsets().to_vector())
    EXPECT_LE(o, 0);
  EXPECT_EQ(S.bytes(), static_cast<std::size_t>(S.ndiag()) * sizeof(I) +
                           static_cast<std::size_t>(S.ndiag() * A.rows()) * sizeof(T));
  // The checking constructor accepts what the conversion built.
  const SymDia<T, I> again(S.rows(), S.offsets().clone(), S.values().clone(),
                           S.explicit_zeros().to(Space::Host));
  EXPECT_EQ(again.nnz(), S.nnz());
  EXPECT_EQ(again.diagonal_entries(), S.diagonal_entries());
  expect_same_csr(to_csr(S), A, name);
  expect_same_csr(to_csr(S.clone()), A, name + " (clone)");
  expect_same_csr(to_csr(spx::ref(convert(A, Format::SymDia))), A, name + " (convert)");
}

TYPED_TEST(SymDiaFormat, RoundTripIsExactOnSymmetricMatrices) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  int symmetric = 0;
  for (auto& [name, A] : all_test_matrices<T, I>()) {
    if (!is_symmetric(A)) {
      EXPECT_THROW(to_sym_dia(A), Unsupported) << name;
      continue;
    }
    ++symmetric;
    if (over_budget(A)) continue;
    check_round_trip<T, I>(name, A);
  }
  EXPECT_GE(symmetric, 7);
  for (auto& [name, A] : generated_symmetric<T, I>()) {
    ASSERT_TRUE(is_symmetric(A)) << name;
    check_round_trip<T, I>(name, A);
  }
  const Csr<T, I> hollow = hollow_band<T, I>(500, fresh_seed());
  check_round_trip<T, I>("hollow band", hollow);
  EXPECT_EQ(to_sym_dia(hollow).diagonal_entries(), 0);
  EXPECT_EQ(to_sym_dia(hollow).offsets().to_vector(), (std::vector<I>{-40, -3, -1}));
  check_round_trip<T, I>("band with empty rows", band_with_empty_rows<T, I>(700, fresh_seed()));
  // Explicit zeros, on the diagonal and off it, stay entries.
  const Csr<T, I> zeros(4, 4, Array<I>{0, 2, 4, 5, 7}, Array<I>{0, 1, 0, 1, 2, 1, 3},
                        Array<T>{0, 2, 2, 0, 5, 0, 6});
  // [0 2 . .; 2 0 . 0; . . 5 .; . 0 . 6]: not symmetric ((1, 3) has no mirror) ...
  EXPECT_THROW(to_sym_dia(zeros), Unsupported);
  // ... with its mirror it is.
  const Csr<T, I> zsym(4, 4, Array<I>{0, 2, 5, 6, 8}, Array<I>{0, 1, 0, 1, 3, 2, 1, 3},
                       Array<T>{0, 2, 2, 0, 0, 5, 0, 6});
  check_round_trip<T, I>("explicit zeros", zsym);
  EXPECT_EQ(to_sym_dia(zsym).explicit_zeros().size(), 3u);
}

TYPED_TEST(SymDiaFormat, RefusesWhatIsNotSymmetricOrTooLarge) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> wide(2, 3, Array<I>{0, 1, 2}, Array<I>{0, 2}, Array<T>{1, 2});
  expect_error<Unsupported>([&] { (void)to_sym_dia(wide); }, {"SYM_DIA", "2x3", "not square"});
  const Csr<T, I> values(3, 3, Array<I>{0, 2, 3, 5}, Array<I>{0, 2, 1, 0, 2},
                         Array<T>{1, 2, 5, 3, 4});
  expect_error<Unsupported>([&] { (void)to_sym_dia(values); },
                            {"SYM_DIA", "not symmetric", "a(0, 2) = 2", "a(2, 0) = 3"});
  const Csr<T, I> upper(3, 3, Array<I>{0, 2, 3, 4}, Array<I>{0, 1, 1, 2}, Array<T>{1, 2, 5, 4});
  expect_error<Unsupported>([&] { (void)to_sym_dia(upper); },
                            {"SYM_DIA", "a(0, 1) = 2 is stored but a(1, 0) is not"});
  const Csr<T, I> lower(3, 3, Array<I>{0, 1, 2, 4}, Array<I>{0, 1, 0, 2}, Array<T>{1, 5, 7, 4});
  expect_error<Unsupported>([&] { (void)to_sym_dia(lower); },
                            {"SYM_DIA", "a(2, 0) = 7 is stored but a(0, 2) is not"});
  expect_error<Unsupported>([&] { (void)convert(lower, Format::SymDia); }, {"SYM_DIA"});
  // SYM_CSR's messages still name SYM_CSR.
  expect_error<Unsupported>([&] { (void)to_sym_csr(lower); }, {"SYM_CSR", "a(2, 0) = 7"});
  // Too many diagonals: DIA's budget (max_expansion, max_bytes_floor).
  std::vector<std::pair<I, I>> scattered;
  for (I i = 0; i < 400; ++i) {
    scattered.push_back({i, i});
    if (i > 0) scattered.push_back({i, static_cast<I>((i * 37) % i)});
  }
  const Csr<T, I> wild = symmetric_from_lower<T, I>(400, scattered, fresh_seed());
  ConvertOptions tight;
  tight.max_bytes_floor = 0;
  tight.max_expansion = 2;
  expect_error<Unsupported>([&] { (void)to_sym_dia(wild, tight); },
                            {"SYM_DIA", "rows x", "diagonals", "max_expansion"});
  EXPECT_NO_THROW((void)to_sym_dia(wild));  // within the default floor
}

TYPED_TEST(SymDiaFormat, ConstructorValidates) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using S = SymDia<T, I>;
  // [4 1 . .; 1 5 2 .; . 2 0 3; . . 3 6]: offsets {-1, 0}, an explicit zero at (2, 2).
  const S ok(4, Array<I>{-1, 0}, Array<T>{0, 1, 2, 3, 4, 5, 0, 6},
             ExplicitZeros<I>{Array<I>{2}, Array<I>{2}});
  EXPECT_EQ(ok.nnz(), 10);
  EXPECT_EQ(ok.stored(), 7);
  EXPECT_EQ(ok.diagonal_entries(), 4);
  const Csr<T, I> full = to_csr(ok);
  EXPECT_EQ(full.row_ptr().to_vector(), (std::vector<I>{0, 2, 5, 8, 10}));
  EXPECT_EQ(full.col_idx().to_vector(), (std::vector<I>{0, 1, 0, 1, 2, 1, 2, 3, 2, 3}));
  EXPECT_EQ(full.values().to_vector(), (std::vector<T>{4, 1, 1, 5, 2, 2, 0, 3, 3, 6}));
  // Without the explicit zero, (2, 2) is absent.
  const S no_zero(4, Array<I>{-1, 0}, Array<T>{0, 1, 2, 3, 4, 5, 0, 6});
  EXPECT_EQ(no_zero.nnz(), 9);
  EXPECT_EQ(no_zero.diagonal_entries(), 3);
  expect_error(
      [] {
        S(2, Array<I>{0, 1}, Array<T>{1, 2, 3, 0});
      },
      {"SYM_DIA", "offsets[1] = 1 lies above the diagonal"});
  expect_error([] { S(3, Array<I>{0, -1}, Array<T>(6)); }, {"SYM_DIA", "offsets"});
  expect_error([] { S(2, Array<I>{-1, 0}, Array<T>{1, 2, 3}); }, {"SYM_DIA", "values"});
  expect_error(
      [] {
        S(2, Array<I>{-1, 0}, Array<T>{7, 2, 3, 4});
      },
      {"SYM_DIA", "values[0] = 7", "outside the matrix"});
  expect_error([] { S(2, Array<I>{-2}, Array<T>{0, 0}); }, {"SYM_DIA", "offsets"});
  expect_error(
      [] {
        S(3, Array<I>{0}, Array<T>{1, 2, 3}, ExplicitZeros<I>{Array<I>{0}, Array<I>{0}});
      },
      {"SYM_DIA", "explicit zero"});
  expect_error([] { S(-1, Array<I>{}, Array<T>{}); }, {"SYM_DIA", "negative shape"});
}

/// y = alpha·A·x + beta·y with SYM_DIA on the CPU against the reference over
/// the (alpha, beta) grid, for several thread counts; deterministic.
template <Value T, Index I>
void check_cpu(const std::string& name, const Csr<T, I>& A) {
  const SymDia<T, I> S = to_sym_dia(A);
  const int saved = omp_get_max_threads();
  for (int threads : {1, 2, 3}) {
    omp_set_num_threads(threads);
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    const std::string label = fmt::format("{}, {} threads, seed={}", name, threads, seed);
    matches_over_grid(kScalars, product, y0, label, on_host(S, x),
                      [](const RunInfo& info, const std::string& what) {
                        EXPECT_EQ(info.format, Format::SymDia) << what;
                        EXPECT_EQ(info.algorithm, Algorithm::CpuRows) << what;
                        EXPECT_TRUE(info.deterministic) << what;
                      });
    std::vector<T> a(y0), b(y0);
    spmv(T{1.5}, S, x, T{-0.5}, a);
    spmv(T{1.5}, S, x, T{-0.5}, b);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(T))) << label;
  }
  omp_set_num_threads(saved);
}

TYPED_TEST(SymDiaFormat, CpuSpmvMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : symmetric_cases<T, I>())
    check_cpu<T, I>(name, A);
  check_cpu<T, I>("large band",
                  band_with_empty_rows<T, I>(small_tests() ? 5000 : 60000, fresh_seed()));
}

TYPED_TEST(SymDiaFormat, CpuSpmmMatchesReference) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = band_with_empty_rows<T, I>(1500, fresh_seed());
  const SymDia<T, I> S = to_sym_dia(A);
  const std::int64_t m = A.rows(), n = 5;
  const std::uint64_t seed = fresh_seed();
  const auto B = random_values<T>(m * n, seed);  // row-major, tight
  const auto C0 = random_values<T>(m * n, seed + 1);
  const Product product = reference::product(A, std::span<const T>(B), n);
  for (const Layout lb : {Layout::RowMajor, Layout::ColMajor})
    for (const auto [a, b] : kScalars.first(4)) {
      const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
      const std::string what = fmt::format("B {} alpha={} beta={} seed={}",
                                           lb == Layout::RowMajor ? "row" : "col", a, b, seed);
      std::vector<T> b_data(static_cast<std::size_t>(m * n));
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j)
          b_data[lb == Layout::RowMajor ? i * n + j : i + j * m] = B[i * n + j];
      std::vector<T> c(b != 0 ? C0 : nan_vector<T>(m * n));
      spmm(alpha, S, DenseView<const T>{b_data.data(), m, n, lb == Layout::RowMajor ? n : m, lb},
           beta, DenseView<T>{c.data(), m, n, n, Layout::RowMajor});
      expect_matches(c, expected<T>(product, alpha, beta, C0), what);
    }
}

TYPED_TEST(SymDiaFormat, AdvisorConsidersItOnlyWhenSymmetric) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = band_with_empty_rows<T, I>(3000, fresh_seed());
  AdvisorOptions options;
  options.bandwidth_gbs = 10;
  options.compute_scale = 1;
  const Advice adv = advise(A, Workload{.products = 100}, options);
  int seen = 0;
  for (const Candidate& c : adv.candidates)
    if (c.format == Format::SymDia) {
      ++seen;
      EXPECT_TRUE(c.feasible) << c.reason;
      EXPECT_EQ(c.bytes, static_cast<std::int64_t>(to_sym_dia(A).bytes()));
    }
  EXPECT_GE(seen, 1);
  const Csr<T, I> B(2, 2, Array<I>{0, 2, 3}, Array<I>{0, 1, 1}, Array<T>{1, 2, 3});
  const Advice bad = advise(B, Workload{.products = 100}, options);
  for (const Candidate& c : bad.candidates)
    if (c.format == Format::SymDia) {
      EXPECT_FALSE(c.feasible);
      EXPECT_CONTAINS(c.reason, "not symmetric");
    }
}

/// A plan forced to SYM_DIA runs it and takes new (symmetric) values in
/// place through its map from slots to CSR positions (padding maps to zero).
TYPED_TEST(SymDiaFormat, PlanUpdatesValues) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = band_with_empty_rows<T, I>(900, seed);
  const Csr<T, I> A2 = band_with_empty_rows<T, I>(900, seed + 7);  // same pattern, new values
  ASSERT_EQ(A2.col_idx().to_vector(), A.col_idx().to_vector());
  const auto x = random_values<T>(A.cols(), seed + 1);
  PlanOptions po;
  po.bandwidth_gbs = 20;
  po.compute_scale = 1;
  po.format = Format::SymDia;
  Workload w;
  w.products = 10;
  Plan<T, I> plan(A, w, po);
  EXPECT_EQ(plan.report().format, Format::SymDia);
  for (const Csr<T, I>* M : {&A, &A2}) {
    if (M == &A2) plan.update_values(std::span<const T>(M->values().data(), M->nnz()));
    std::vector<T> y(static_cast<std::size_t>(A.rows()), std::numeric_limits<T>::quiet_NaN());
    const RunInfo ran = plan.run(T{1}, x, T{0}, y);
    EXPECT_EQ(ran.format, Format::SymDia);
    const Expected<T> want = expected<T>(reference::product(*M, std::span<const T>(x)), T{1}, T{0},
                                         std::span<const T>(y));
    expect_matches(y, want, M == &A ? "before the update" : "after the update");
  }
}

/// The CUDA kernel against the reference over the grid (y NaN-poisoned for
/// beta = 0), a fresh x per matrix; Auto reports it; deterministic.
TYPED_TEST(SymDiaFormat, CudaSpmvMatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto cases = symmetric_cases<T, I>();
  cases.emplace_back("large band",
                     band_with_empty_rows<T, I>(small_tests() ? 20000 : 400000, fresh_seed()));
  cases.emplace_back("large hollow band",
                     hollow_band<T, I>(small_tests() ? 20000 : 300000, fresh_seed()));
  for (auto& [name, A] : cases) {
    if (A.nnz() == 0) continue;
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    const SymDia<T, I> dS = to_sym_dia(A).to(Space::Device);
    const auto kernels = cuda_kernels<T, I>(Format::SymDia);
    ASSERT_FALSE(kernels.empty());
    for (const auto* k : kernels) {
      EXPECT_TRUE(k->info.deterministic);
      matches_over_grid(kScalars, product, y0,
                        fmt::format("{} {}, seed={}", name, to_string(k->info.algorithm), seed),
                        on_device(dS, k->info.algorithm, x), reports_kernel(k->info));
    }
    RunInfo info;
    const auto a = device_spmv(dS, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()), &info);
    const auto b = device_spmv(dS, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()));
    EXPECT_EQ(info.format, Format::SymDia);
    EXPECT_EQ(info.algorithm, Algorithm::Diagonal);
    EXPECT_EQ(info.backend, Backend::Cuda);
    EXPECT_TRUE(info.deterministic);
    EXPECT_TRUE(bitwise_equal(a, b)) << name;
  }
}

}  // namespace
}  // namespace spx::test
