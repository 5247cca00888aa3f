// CUDA kernels of the ELLPACK family (ELL, SELL-C-σ / SELL-P, HLL, JAD, HYB)
// and the cuSPARSE SELL baseline: geometry stress cases (rows not a multiple
// of the slice or hack size, one long row, runs of empty rows, whole empty
// slices, widths 0 and 1, long rows for the multi-lane kernels, HYB at every
// split), every registered kernel over an alpha/beta grid with NaN-poisoned y
// for beta = 0, the Auto rules and what they report, can_run refusals with
// reasons, reproducibility, and cached cuSPARSE plans surviving new values.
// Every test needs a GPU: it skips without one, and fails instead when
// SPX_REQUIRE_GPU=1. SPX_TEST_SMALL=1 shrinks the larger matrices.
// (test_spmv.cpp also runs these kernels on the shared test matrices.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "baselines/baselines.hpp"
#include "common.hpp"
#include "cuda_common.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(CudaEllpack);

/// Geometry stress cases (host CSR, every one with nonzeros).
template <Value T, Index I>
std::vector<TestMatrix<T, I>> geometry_cases() {
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 gen(seed);
  std::vector<TestMatrix<T, I>> out;
  const auto add = [&](std::string name, std::int64_t cols, std::vector<std::int64_t> len) {
    out.push_back({std::move(name), csr_with_lengths<T, I>(cols, len, seed + 17 * out.size())});
  };
  {  // 1007 rows (no multiple of any slice or hack size), lengths 0..12
    std::vector<std::int64_t> len(1007);
    for (auto& l : len)
      l = static_cast<std::int64_t>(gen() % 13);
    add("ragged-1007", 500, len);
  }
  {  // one long row among short ones
    std::vector<std::int64_t> len(777);
    for (auto& l : len)
      l = static_cast<std::int64_t>(gen() % 4);
    len[400] = 3000;
    add("one-long-row", 4000, len);
  }
  {  // almost all rows empty: whole slices and hacks without entries
    std::vector<std::int64_t> len(2049, 0);
    len[70] = 3;
    len[2048] = 7;
    add("mostly-empty", 300, len);
  }
  {  // width 1: every row one entry or none
    std::vector<std::int64_t> len(1000);
    for (auto& l : len)
      l = static_cast<std::int64_t>(gen() % 4 == 0 ? 0 : 1);
    len[0] = 1;
    add("width-1", 1000, len);
  }
  {  // long rows (mean > 24: the two-lane and SELL-P paths at work)
    std::vector<std::int64_t> len(301);
    for (auto& l : len)
      l = 30 + static_cast<std::int64_t>(gen() % 31);
    add("long-rows", 2000, len);
  }
  {  // a single row
    add("one-row", 90, {37});
  }
  // 2D 5-point stencil, many blocks
  out.push_back(
      {"stencil-5pt",
       generated<T, I>(fmt::format("stencil2d:n={},points=5", small_tests() ? 40 : 200), seed + 99)
           .A});
  return out;
}

template <Value T, Index I>
std::int64_t longest_row(const Csr<T, I>& A) {
  const auto ptr = A.row_ptr().to_vector();
  std::int64_t m = 0;
  for (std::size_t r = 0; r + 1 < ptr.size(); ++r)
    m = std::max<std::int64_t>(m, ptr[r + 1] - ptr[r]);
  return m;
}

template <Value T, Index I>
struct Variant {
  std::string name;
  Matrix<T, I> m;  // device
};

/// The ELLPACK-family formats of A on the device, in several parameter
/// settings each (slice sizes that do not divide the row count, σ > 1,
/// threads_per_row that is no power of two, hacks of one row, every HYB split).
template <Value T, Index I>
std::vector<Variant<T, I>> device_variants(const Csr<T, I>& A) {
  std::vector<Variant<T, I>> out;
  const auto dev = [](auto&& a) { return Matrix<T, I>(a.to(Space::Device)); };
  out.push_back({"ELL", dev(to_ell(A))});
  struct SellParams {
    int C, sigma, tpr;
  };
  for (const SellParams p :
       {SellParams{32, 1, 1}, SellParams{32, 1, 4}, SellParams{32, 128, 2}, SellParams{8, 64, 8},
        SellParams{7, 1, 3}, SellParams{4, 4, 32}, SellParams{1, 1, 1}, SellParams{64, 64, 16}}) {
    ConvertOptions o;
    o.slice_size = p.C;
    o.sigma = p.sigma;
    o.threads_per_row = p.tpr;
    out.push_back(
        {fmt::format("SELL C={} sigma={} tpr={}", p.C, p.sigma, p.tpr), dev(to_sell(A, o))});
    out.push_back({fmt::format("SELL_PACK C={} sigma={} tpr={}", p.C, p.sigma, p.tpr),
                   dev(to_sell_pack(A, o))});
  }
  for (int H : {32, 5, 1}) {
    ConvertOptions o;
    o.hack_size = H;
    out.push_back({fmt::format("HLL H={}", H), dev(to_hll(A, o))});
  }
  const std::int64_t longest = longest_row(A);
  for (std::int64_t K : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, longest}) {
    ConvertOptions o;
    o.hyb_width = std::min(K, longest);
    out.push_back({fmt::format("HYB K={}", K), dev(to_hyb(A, o))});
  }
  out.push_back({"JAD", dev(to_jad(A))});
  return out;
}

Format format_of(const auto& m) {
  return std::visit([](const auto& a) { return std::decay_t<decltype(a)>::kFormat; }, m);
}

// ---- every kernel on every geometry case ---------------------------------------

TYPED_TEST(CudaEllpack, EveryKernelOnGeometryCases) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  std::set<Algorithm> ran[6];  // per format, in the order of kFormats below
  constexpr Format kFormats[] = {Format::Ell, Format::Sell, Format::Hll,
                                 Format::Jad, Format::Hyb,  Format::SellPack};
  for (auto& [name, A] : geometry_cases<T, I>()) {
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    for (auto& [vname, m] : device_variants(A)) {
      for (const auto* k : cuda_kernels<T, I>(format_of(m))) {
        const std::string alg(to_string(k->info.algorithm));
        const std::string reason = k->can_run(spx::ref(m));
        if (!reason.empty()) {
          // The only refusal expected: cuSPARSE SELL on a permuted SELL.
          EXPECT_EQ(k->info.algorithm, spx::baselines::CusparseSellAlg1) << vname << " " << reason;
          EXPECT_EQ(vname.find("sigma=1 "), std::string::npos) << vname;
          continue;
        }
        const bool passed = matches_over_grid(
            kScalars.first(3), product, y0,
            fmt::format("{} as {}, {}, seed={}", name, vname, alg, seed),
            on_device(m, k->info.algorithm, x), [&](const RunInfo& info, const std::string& what) {
              reports_kernel(k->info)(info, what);
              EXPECT_EQ(info.deterministic, k->info.deterministic) << what;
            });
        if (!passed) return;
        for (int f = 0; f < 6; ++f)
          if (kFormats[f] == k->info.format) ran[f].insert(k->info.algorithm);
      }
    }
  }
  // Guard: every registered kernel of the six formats ran (the baseline too).
  for (int f = 0; f < 6; ++f) {
    EXPECT_FALSE(ran[f].empty()) << to_string(kFormats[f]);
    for (const auto* k : cuda_kernels<T, I>(kFormats[f]))
      EXPECT_EQ(ran[f].count(k->info.algorithm), 1u)
          << to_string(kFormats[f]) << " " << to_string(k->info.algorithm) << " never ran";
  }
}

// ---- HYB splits ---------------------------------------------------------------

TYPED_TEST(CudaEllpack, HybIsCorrectForEverySplit) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : geometry_cases<T, I>()) {
    const std::int64_t longest = longest_row(A);
    const auto x = random_values<T>(A.cols(), fresh_seed());
    const auto y0 = random_values<T>(A.rows(), fresh_seed());
    const auto ref_y = expected_spmv<T, I>(T{-2}, A, x, T{0.75}, y0);
    for (std::int64_t K = 0; K <= longest; K += std::max<std::int64_t>(1, longest / 7)) {
      for (std::int64_t k : {K, longest}) {
        ConvertOptions o;
        o.hyb_width = k;
        const Hyb<T, I> h = to_hyb(A, o);
        if (k == 0) {
          ASSERT_EQ(h.coo().nnz(), A.nnz()) << name;  // all COO
        }
        if (k == longest) {
          ASSERT_EQ(h.coo().nnz(), 0) << name;  // empty COO
        }
        const Matrix<T, I> m(h.to(Space::Device));
        const auto got = device_spmv(m, Algorithm::Hybrid, T{-2}, x, T{0.75}, y0);
        EXPECT_EQ(expect_matches(got, ref_y, fmt::format("{} HYB K={}", name, k)), 0);
      }
    }
  }
}

// ---- Auto ---------------------------------------------------------------------

TYPED_TEST(CudaEllpack, AutoFollowsItsRulesAndReportsTheKernel) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : geometry_cases<T, I>()) {
    const auto x = random_values<T>(A.cols(), fresh_seed());
    const auto ref_y = expected_spmv<T, I>(T{1}, A, x, T{0}, std::vector<T>(A.rows()));
    const double mean = static_cast<double>(A.nnz()) / static_cast<double>(A.rows());
    for (auto& [vname, m] : device_variants(A)) {
      RunInfo info;
      const auto got =
          device_spmv(m, Algorithm::Auto, T{1}, x, T{0}, nan_vector<T>(A.rows()), &info);
      const std::string what = fmt::format("{} as {}", name, vname);
      EXPECT_EQ(expect_matches(got, ref_y, what), 0);
      EXPECT_EQ(info.backend, Backend::Cuda) << what;
      EXPECT_EQ(info.format, format_of(m)) << what;
      std::visit(
          [&](const auto& a) {
            using M = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<M, Sell<T, I>>) {
              EXPECT_EQ(info.algorithm, a.threads_per_row() > 1 ? Algorithm::ThreadsPerRow
                                                                : Algorithm::ThreadPerRow)
                  << what;
            } else if constexpr (std::is_same_v<M, Jad<T, I>>) {
              EXPECT_EQ(info.algorithm, Algorithm::Jagged) << what;
            } else if constexpr (std::is_same_v<M, Hyb<T, I>>) {
              EXPECT_EQ(info.algorithm, Algorithm::Hybrid) << what;
              EXPECT_FALSE(info.deterministic) << what;
            } else if constexpr (std::is_same_v<M, Ell<T, I>> || std::is_same_v<M, Hll<T, I>>) {
              // Long rows: two lanes; short rows: one, whatever the GPU size.
              if (mean > 24) {
                EXPECT_EQ(info.algorithm, Algorithm::TwoThreadsPerRow) << what;
              }
              if (mean <= 8) {
                EXPECT_EQ(info.algorithm, Algorithm::ThreadPerRow) << what;
              }
            }
          },
          m);
    }
  }
}

// ---- cuSPARSE SELL --------------------------------------------------------------

TYPED_TEST(CudaEllpack, CusparseSellRefusesPermutedSellWithAReason) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto cases = geometry_cases<T, I>();
  const Csr<T, I>& A = cases.front().A;  // ragged rows: sorting permutes them
  ConvertOptions o;
  o.slice_size = 32;
  o.sigma = 256;
  const Sell<T, I> dsorted = to_sell(A, o).to(Space::Device);
  ASSERT_FALSE(dsorted.perm().empty());
  const auto* k = Registry<T, I>::instance().find_spmv(
      Format::Sell, spx::baselines::CusparseSellAlg1, Backend::Cuda);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(k->info.baseline);
  const std::string reason = k->can_run(MatrixRef<T, I>{&dsorted});
  EXPECT_NE(reason.find("sigma = 256"), std::string::npos) << reason;
  const auto x = random_values<T>(A.cols(), fresh_seed());
  const Array<T> dx = Array<T>(x).to(Space::Device);
  Array<T> dy = Array<T>(nan_vector<T>(A.rows())).to(Space::Device);
  SpmvOptions opts;
  opts.algorithm = spx::baselines::CusparseSellAlg1;
  EXPECT_THROW(spmv(T{1}, dsorted, dx, T{0}, dy, opts), Unsupported);
  // σ = 1 runs.
  o.sigma = 1;
  const Sell<T, I> dplain = to_sell(A, o).to(Space::Device);
  EXPECT_EQ(k->can_run(MatrixRef<T, I>{&dplain}), "");
}

TYPED_TEST(CudaEllpack, CusparseSellPlanSurvivesNewValues) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto cases = geometry_cases<T, I>();
  Csr<T, I>& A = cases.front().A;
  ConvertOptions o;
  o.threads_per_row = 2;
  Sell<T, I> host = to_sell(A, o);
  Sell<T, I> dA = host.to(Space::Device);
  const auto x = random_values<T>(A.cols(), fresh_seed());
  const auto y0 = random_values<T>(A.rows(), fresh_seed());
  const auto run = [&](const Sell<T, I>& M) {
    const Array<T> dx = Array<T>(x).to(Space::Device);
    Array<T> dy = Array<T>(y0).to(Space::Device);
    SpmvOptions opts;
    opts.algorithm = spx::baselines::CusparseSellAlg1;
    spmv(T{1.5}, M, dx, T{0.5}, dy, opts);
    return dy.to_vector();
  };
  const auto first = run(dA);
  EXPECT_EQ(expect_matches(first, expected_spmv<T, I>(T{1.5}, A, x, T{0.5}, y0), "first"), 0);
  EXPECT_TRUE(bitwise_equal(first, run(dA)));  // cached plan, reproducible
  // New values, same structure: scale every stored value (padding stays 0).
  std::vector<T> v = host.values().to_vector();
  for (auto& e : v)
    e *= T{-3};
  detail::copy_bytes(dA.values().data(), Space::Device, v.data(), Space::Host,
                     v.size() * sizeof(T));
  std::vector<T> csr_v = A.values().to_vector();
  for (auto& e : csr_v)
    e *= T{-3};
  std::copy(csr_v.begin(), csr_v.end(), A.values().begin());
  EXPECT_EQ(expect_matches(run(dA), expected_spmv<T, I>(T{1.5}, A, x, T{0.5}, y0), "new values"),
            0);
}

// ---- reproducibility ------------------------------------------------------------

TYPED_TEST(CudaEllpack, DeterministicKernelsAreBitwiseReproducible) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : geometry_cases<T, I>()) {
    const auto x = random_values<T>(A.cols(), fresh_seed());
    const auto y0 = nan_vector<T>(A.rows());
    for (auto& [vname, m] : device_variants(A)) {
      for (const auto* k : cuda_kernels<T, I>(format_of(m))) {
        if (!k->info.deterministic || !k->can_run(spx::ref(m)).empty()) continue;
        const auto first = device_spmv(m, k->info.algorithm, T{1}, x, T{0}, y0);
        const auto second = device_spmv(m, k->info.algorithm, T{1}, x, T{0}, y0);
        EXPECT_TRUE(bitwise_equal(first, second))
            << name << " as " << vname << " " << to_string(k->info.algorithm);
      }
    }
  }
}

// ---- a larger case: many blocks, both lane counts -------------------------------

TYPED_TEST(CudaEllpack, LargerStencil27MatchesReference) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::int64_t g = small_tests() ? 12 : 48;  // 27-point stencil on g^3 points
  const std::uint64_t seed = fresh_seed();
  const Csr<T, I> A = generated<T, I>(fmt::format("stencil3d:n={},points=27", g), seed).A;
  const auto x = random_values<T>(A.cols(), seed + 1);
  const auto y0 = random_values<T>(A.rows(), seed + 2);
  const auto ref_y = expected_spmv<T, I>(T{0.5}, A, x, T{-1}, y0);
  ConvertOptions sellp;
  sellp.threads_per_row = 4;
  std::vector<Variant<T, I>> variants;
  variants.push_back({"ELL", Matrix<T, I>(to_ell(A).to(Space::Device))});
  variants.push_back({"SELL-P", Matrix<T, I>(to_sell(A, sellp).to(Space::Device))});
  variants.push_back({"HLL", Matrix<T, I>(to_hll(A).to(Space::Device))});
  variants.push_back({"HYB", Matrix<T, I>(to_hyb(A).to(Space::Device))});
  variants.push_back({"JAD", Matrix<T, I>(to_jad(A).to(Space::Device))});
  for (auto& [vname, m] : variants)
    for (const auto* k : cuda_kernels<T, I>(format_of(m))) {
      if (!k->can_run(spx::ref(m)).empty()) continue;
      const std::string what = fmt::format("stencil-27 g={} as {}, {} seed={}", g, vname,
                                           to_string(k->info.algorithm), seed);
      EXPECT_EQ(
          expect_matches(device_spmv(m, k->info.algorithm, T{0.5}, x, T{-1}, y0), ref_y, what), 0);
    }
}

}  // namespace
}  // namespace spx::test
