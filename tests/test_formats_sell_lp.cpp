// SELL-LP (sell_lp.hpp): the rounding helpers, the conversions and their
// refusals, the documented error bound (met, and demonstrably tighter than
// what a wrong kernel would give; and exceeding the full-precision bound, so
// the kernel tests' widened check is needed and can fail), empty rows, NaN
// poisoning, the opt-in rule of the advisor and the plan, and the device
// conversion against the host one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "reference.hpp"
#include "spx/advisor.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"
#include "spx/plan.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(SellLpFormat);

/// rows × cols with `per_row` random columns per row (row i % 7 == 3 left
/// empty), values ±10^U(-decades, decades).
template <Value T, Index I>
Csr<T, I> spread_csr(std::int64_t rows, std::int64_t cols, int per_row, double decades,
                     std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> e(-decades, decades);
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t r = 0; r < rows; ++r) {
    if (r % 7 != 3) {
      std::vector<I> cs;
      for (int k = 0; k < per_row; ++k)
        cs.push_back(static_cast<I>(gen() % static_cast<std::uint64_t>(cols)));
      std::sort(cs.begin(), cs.end());
      cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
      for (I c : cs) {
        col.push_back(c);
        val.push_back(static_cast<T>((gen() & 1 ? 1.0 : -1.0) * std::pow(10.0, e(gen))));
      }
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  return Csr<T, I>(static_cast<I>(rows), static_cast<I>(cols), Array<I>(ptr), Array<I>(col),
                   Array<T>(val));
}

/// A CSR with one row of the given values (columns 0, 1, ...).
template <Value T, Index I>
Csr<T, I> one_row(const std::vector<T>& v) {
  std::vector<I> col(v.size());
  for (std::size_t k = 0; k < v.size(); ++k)
    col[k] = static_cast<I>(k);
  return Csr<T, I>(I{1}, static_cast<I>(v.size()), Array<I>{I{0}, static_cast<I>(v.size())},
                   Array<I>(col), Array<T>(v));
}

TEST(SellLpRounding, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(lowp::to_bf16(1.0f), 0x3f80);
  // Halfway between 1 and 1 + 2^-7: to the even one (1).
  EXPECT_EQ(lowp::to_bf16(1.0f + 0x1p-8f), 0x3f80);
  // Halfway between 1 + 2^-7 and 1 + 2^-6: to the even one (1 + 2^-6).
  EXPECT_EQ(lowp::to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
  // Just above halfway: up.
  EXPECT_EQ(lowp::to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(lowp::to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(lowp::from_bf16(0x3f81), 1.0f + 0x1p-7f);
  EXPECT_TRUE(std::isnan(lowp::from_bf16(lowp::to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  // A signalling NaN whose payload sits in the low bits stays a NaN (not inf).
  const float snan = std::bit_cast<float>(0x7f800001u);
  EXPECT_TRUE(std::isnan(lowp::from_bf16(lowp::to_bf16(snan))));
  EXPECT_EQ(lowp::from_bf16(lowp::to_bf16(std::numeric_limits<float>::infinity())),
            std::numeric_limits<float>::infinity());
  // The largest bfloat16, and the overflow past it.
  EXPECT_EQ(static_cast<double>(lowp::from_bf16(0x7f7f)), lowp::kLargest<float>);
  EXPECT_EQ(lowp::to_bf16(0x1.FEp127f), 0x7f7f);
  EXPECT_FALSE(lowp::overflows<float>(0x1.FEp127f));
  EXPECT_FALSE(lowp::overflows<float>(0x1.FEFFFEp127f));  // just below halfway: down
  EXPECT_TRUE(lowp::overflows<float>(0x1.FFp127f));       // halfway: to even, which is inf
  EXPECT_TRUE(lowp::overflows<float>(std::numeric_limits<float>::max()));
  EXPECT_FALSE(lowp::overflows<float>(std::numeric_limits<float>::infinity()));
  EXPECT_FALSE(lowp::overflows<double>(static_cast<double>(std::numeric_limits<float>::max())));
  EXPECT_TRUE(lowp::overflows<double>(1e39));
  EXPECT_FALSE(lowp::overflows<double>(std::numeric_limits<double>::quiet_NaN()));
  // Subnormals: kept, rounded.
  EXPECT_EQ(lowp::widen<double>(lowp::narrow<double>(1e-40)), static_cast<double>(1e-40f));
  EXPECT_EQ(lowp::widen<double>(lowp::narrow<double>(1e-50)), 0.0);
  // Every relative rounding error within u_s, over many magnitudes.
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> e(-30, 30);
  for (int k = 0; k < 100000; ++k) {
    const double d = std::pow(10.0, e(gen));
    const auto f = static_cast<float>(d);
    EXPECT_LE(std::fabs(lowp::widen<double>(lowp::narrow<double>(d)) - d), 0x1p-24 * d);
    EXPECT_LE(std::fabs(double{lowp::widen<float>(lowp::narrow<float>(f))} - double{f}),
              0x1p-8 * double{f});
  }
}

TYPED_TEST(SellLpFormat, RoundTripGivesTheRoundedValues) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Csr<T, I> A = spread_csr<T, I>(300, 250, 9, 12, seed);
  for (int sigma : {1, 64}) {
    ConvertOptions o;
    o.sigma = sigma;
    o.threads_per_row = sigma == 1 ? 1 : 4;
    const SellLp<T, I> L = to_sell_lp(A, o);
    EXPECT_EQ(L.nnz(), A.nnz());
    EXPECT_EQ(L.space(), Space::Host);
    const Sell<T, I> S = to_sell(A, o);
    EXPECT_EQ(L.col_idx().to_vector(), S.col_idx().to_vector());
    EXPECT_EQ(L.stored(), S.stored());
    EXPECT_EQ(L.bytes(), S.bytes() - static_cast<std::size_t>(S.stored()) *
                                         (sizeof(T) - sizeof(reduced_value_t<T>)));
    const Csr<T, I> B = to_csr(L);
    EXPECT_EQ(B.row_ptr().to_vector(), A.row_ptr().to_vector());
    EXPECT_EQ(B.col_idx().to_vector(), A.col_idx().to_vector());
    const auto a = A.values().to_vector(), b = B.values().to_vector();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      ASSERT_EQ(b[k], lowp::widen<T>(lowp::narrow<T>(a[k]))) << k;
      ASSERT_LE(std::fabs(b[k] - a[k]), lowp::kUnitRoundoff<T> * std::fabs(a[k])) << k;
    }
    // The validating constructor takes the converted arrays back.
    const SellLp<T, I> V(L.rows(), L.cols(), L.slice_size(), L.sigma(), L.threads_per_row(),
                         L.slice_ptr().clone(), L.slice_width().clone(), L.col_idx().clone(),
                         L.values().clone(), L.row_len().clone(), L.perm().clone());
    EXPECT_EQ(V.nnz(), L.nnz());
    // And the generic entry points know the format.
    const Matrix<T, I> M = convert(A, Format::SellLp, o);
    const Format got = format_of<T, I>(ref(M));
    EXPECT_EQ(got, Format::SellLp);
  }
}

TYPED_TEST(SellLpFormat, ConstructorRefusesNonZeroPadding) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // 2 rows, C = 2: row 0 has one entry, row 1 two; width 2; slot (row 0, entry 1) is padding.
  const auto one = lowp::narrow<T>(T{1});
  expect_error(
      [&] {
        SellLp<T, I>(I{2}, I{3}, 2, 1, 1, Array<I>{I{0}, I{4}}, Array<I>{I{2}},
                     Array<I>{0, 0, 0, 2}, Array<reduced_value_t<T>>{one, one, one, one},
                     Array<I>{I{1}, I{2}}, Array<I>{});
      },
      {"SELL_LP", "padding", "values[2]"});
  // The same with a zero there is accepted.
  const SellLp<T, I> ok(I{2}, I{3}, 2, 1, 1, Array<I>{I{0}, I{4}}, Array<I>{I{2}},
                        Array<I>{0, 0, 0, 2},
                        Array<reduced_value_t<T>>{one, one, reduced_value_t<T>{0}, one},
                        Array<I>{I{1}, I{2}}, Array<I>{});
  EXPECT_EQ(ok.nnz(), 3);
}

TYPED_TEST(SellLpFormat, OverflowIsRefusedNamingTheEntry) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // double → float: 1e39 overflows; float → bfloat16: FLT_MAX does.
  const T big = std::is_same_v<T, double> ? static_cast<T>(1e39) : std::numeric_limits<T>::max();
  std::vector<T> v{T{1}, T{2}, big, T{3}};
  const Csr<T, I> A = one_row<T, I>(v);
  expect_error([&] { (void)to_sell_lp(A); },
               {"SELL_LP", "row 0", "column 2", fmt::format("{}", big), lowp::kStorageName<T>});
  // The largest storable value, ±inf and NaN convert (kept as they are).
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const auto largest = static_cast<T>(lowp::kLargest<T>);
  const SellLp<T, I> L = to_sell_lp(one_row<T, I>({largest, -largest, inf, -inf, nan}));
  const auto back = to_csr(L).values().to_vector();
  EXPECT_EQ(back[0], largest);
  EXPECT_EQ(back[1], -largest);
  EXPECT_EQ(back[2], inf);
  EXPECT_EQ(back[3], -inf);
  EXPECT_TRUE(std::isnan(back[4]));
}

/// The measured error of SELL-LP's SpMV (host and, where present, device),
/// relative to its documented bound and to the full-precision one, on a
/// matrix whose values spread over `decades` decades each way.
template <Value T, Index I>
void check_bound(Space space, std::uint64_t seed) {
  const Csr<T, I> A = spread_csr<T, I>(2000, 1500, 24, 15, seed);
  const SellLp<T, I> L = to_sell_lp(A).to(space);
  const auto x = random_values<T>(A.cols(), seed + 1);
  const auto y0 = random_values<T>(A.rows(), seed + 2);
  const reference::Product p = reference::product(A, std::span<const T>(x));
  const double us = stored_value_roundoff<T>(Format::SellLp);
  ASSERT_EQ(us, lowp::kUnitRoundoff<T>);
  const Array<T> dx = Array<T>(x).to(space);
  double worst_lp = 0, worst_full = 0, worst_us = 0;
  for (const auto [a, b] : kScalars) {
    const T alpha = static_cast<T>(a), beta = static_cast<T>(b);
    const std::string what = fmt::format("alpha={} beta={} seed={}", a, b, seed);
    std::vector<T> init =
        b == 0 ? std::vector<T>(y0.size(), std::numeric_limits<T>::quiet_NaN()) : y0;
    Array<T> dy = Array<T>(init).to(space);
    const RunInfo info = spmv(alpha, L, dx, beta, dy);
    EXPECT_EQ(info.format, Format::SellLp) << what;
    const std::vector<T> y = dy.to_vector();
    const reference::Expected<T> lp = reference::expected<T>(p, alpha, beta, y0, us);
    const reference::Expected<T> full = reference::expected<T>(p, alpha, beta, y0);
    EXPECT_EQ(expect_matches(y, lp, what), 0);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const long double err = std::fabs(static_cast<long double>(y[i]) - lp.y[i]);
      if (lp.bound[i] > 0) worst_lp = std::max(worst_lp, static_cast<double>(err / lp.bound[i]));
      if (full.bound[i] > 0)
        worst_full = std::max(worst_full, static_cast<double>(err / full.bound[i]));
      // The error relative to u_s·|α|Σ|a x| alone (the dominant term).
      const long double scale = std::fabs(static_cast<long double>(alpha)) * p.magnitude[i];
      if (scale > 0) worst_us = std::max(worst_us, static_cast<double>(err / (us * scale)));
    }
  }
  // Within the documented bound ...
  EXPECT_LE(worst_lp, 1.0);
  // ... which is not vacuous: the error reaches a fair part of u_s·Σ|a x| ...
  EXPECT_GT(worst_us, 0.01);
  // ... and is far outside the full-precision bound, which a full-precision
  // check would flag: the kernel tests' widened bound is what lets it pass.
  EXPECT_GT(worst_full, 10.0);
}

TYPED_TEST(SellLpFormat, ErrorWithinTheDocumentedBound) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  check_bound<T, I>(Space::Host, seed);
}

TYPED_TEST(SellLpFormat, DeviceErrorWithinTheDocumentedBound) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  check_bound<T, I>(Space::Device, seed);
}

TYPED_TEST(SellLpFormat, BoundCheckFlagsAWrongResult) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Csr<T, I> A = spread_csr<T, I>(200, 150, 8, 6, seed);
  const auto x = random_values<T>(A.cols(), seed + 1);
  const reference::Product p = reference::product(A, std::span<const T>(x));
  const double us = stored_value_roundoff<T>(Format::SellLp);
  // The product with the full-precision values perturbed by 4·u_s each way
  // (a kernel that rounded twice as coarsely as documented, and worse).
  std::vector<T> v = A.values().to_vector();
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<T>(static_cast<long double>(v[k]) * (1 + (k % 2 ? 4 : -4) * us));
  const Csr<T, I> W(A.rows(), A.cols(), A.row_ptr().clone(), A.col_idx().clone(), Array<T>(v));
  std::vector<T> y(A.rows());
  spmv(T{1}, W, x, T{0}, y);
  const reference::Deviation d = reference::deviation<T>(y, p, us);
  EXPECT_GT(d.ratio, 1.0) << "a result off by 4 u_s must fail the SELL-LP bound";
  // While SELL-LP's own result passes.
  std::vector<T> z(A.rows());
  spmv(T{1}, to_sell_lp(A), x, T{0}, z);
  EXPECT_LE(reference::deviation<T>(z, p, us).ratio, 1.0);
  EXPECT_GT(reference::deviation<T>(z, p).ratio, 1.0) << "the full-precision bound flags it";
}

TYPED_TEST(SellLpFormat, EmptyRowsAndPoisonedOutput) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Rows 0, 3, 4 empty; the last slice partial (C = 4, 7 rows).
  const Csr<T, I> A(I{7}, I{5}, Array<I>{0, 0, 2, 3, 3, 3, 5, 6}, Array<I>{0, 4, 2, 1, 3, 4},
                    Array<T>{T{1}, T{2}, T{3}, T{4}, T{5}, T{6}});
  ConvertOptions o;
  o.slice_size = 4;
  for (int sigma : {1, 4}) {
    o.sigma = sigma;
    const SellLp<T, I> L = to_sell_lp(A, o);
    const std::vector<T> x{T{1}, T{10}, T{100}, T{1000}, T{10000}};
    std::vector<T> y(7, std::numeric_limits<T>::quiet_NaN());
    spmv(T{1}, L, x, T{0}, y);
    const std::vector<T> want{0, 1 + 20000, 300, 0, 0, 40 + 5000, 60000};
    for (int i = 0; i < 7; ++i)
      EXPECT_EQ(y[i], want[i]) << "row " << i << " sigma " << sigma;
    // SpMM, two columns, C poisoned.
    std::vector<T> B(10), C(14, std::numeric_limits<T>::quiet_NaN());
    for (int k = 0; k < 5; ++k)
      B[2 * k] = B[2 * k + 1] = x[k];
    spmm(T{1}, L, DenseView<const T>{B.data(), 5, 2, 2, Layout::RowMajor, Space::Host}, T{0},
         DenseView<T>{C.data(), 7, 2, 2, Layout::RowMajor, Space::Host});
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(C[2 * i], want[i]) << i;
      EXPECT_EQ(C[2 * i + 1], want[i]) << i;
    }
  }
}

TYPED_TEST(SellLpFormat, AdvisorAndPlanUseItOnlyWhenAllowed) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = spread_csr<T, I>(3000, 3000, 12, 2, 5);
  Workload work;
  work.products = 1000000;
  AdvisorOptions ao;
  ao.bandwidth_gbs = 100;
  ao.compute_scale = 1;
  const auto lp_candidates = [](const Advice& adv) {
    std::vector<const Candidate*> out;
    for (const Candidate& c : adv.candidates)
      if (c.format == Format::SellLp) out.push_back(&c);
    return out;
  };
  const Advice off = advise(A, work, ao);
  EXPECT_NE(off.chosen().format, Format::SellLp);
  ASSERT_FALSE(lp_candidates(off).empty());
  for (const Candidate* c : lp_candidates(off)) {
    EXPECT_FALSE(c->feasible);
    EXPECT_CONTAINS(c->reason, "allow_reduced_precision");
  }
  ao.allow_reduced_precision = true;
  const Advice on = advise(A, work, ao);
  for (const Candidate* c : lp_candidates(on)) {
    EXPECT_TRUE(c->feasible) << c->reason;
    // Fewer bytes than SELL's.
    for (const Candidate& s : on.candidates)
      if (s.format == Format::Sell) {
        EXPECT_LT(c->bytes, s.bytes);
      }
  }
  // Already in SELL-LP: the caller chose it.
  const Advice kept =
      advise(A, work, AdvisorOptions{.bandwidth_gbs = 100, .compute_scale = 1}, Format::SellLp);
  for (const Candidate* c : lp_candidates(kept))
    EXPECT_TRUE(c->feasible) << c->reason;

  // Plans: never SELL-LP by default; forced, it is used.
  PlanOptions po;
  po.bandwidth_gbs = 100;
  po.compute_scale = 1;
  const Plan<T, I> plain(A, work, po);
  EXPECT_NE(plain.report().format, Format::SellLp);
  po.format = Format::SellLp;
  Plan<T, I> forced(A, work, po);
  EXPECT_EQ(forced.report().format, Format::SellLp);
  const auto x = random_values<T>(A.cols(), 3);
  std::vector<T> y(A.rows());
  forced.run(T{1}, x, T{0}, y);
  const reference::Product p = reference::product(A, std::span<const T>(x));
  EXPECT_LE(reference::deviation<T>(y, p, lowp::kUnitRoundoff<T>).ratio, 1.0);
  // New values are rounded again.
  std::vector<T> v = A.values().to_vector();
  for (T& e : v)
    e = -e;
  forced.update_values(v);
  forced.run(T{1}, x, T{0}, y);
  const Csr<T, I> N(A.rows(), A.cols(), A.row_ptr().clone(), A.col_idx().clone(), Array<T>(v));
  EXPECT_LE(reference::deviation<T>(y, reference::product(N, std::span<const T>(x)),
                                    lowp::kUnitRoundoff<T>)
                .ratio,
            1.0);
}

TYPED_TEST(SellLpFormat, DeviceConversionMatchesTheHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Csr<T, I> A = spread_csr<T, I>(1000, 900, 11, 12, seed);
  for (int sigma : {1, 128}) {
    ConvertOptions o;
    o.sigma = sigma;
    const SellLp<T, I> h = to_sell_lp(A, o);
    const SellLp<T, I> d = to_sell_lp(A.to(Space::Device), o);
    EXPECT_EQ(d.space(), Space::Device);
    EXPECT_EQ(d.nnz(), h.nnz());
    expect_bitwise_equal(d.values(), h.values(), "values");
    expect_bitwise_equal(d.col_idx(), h.col_idx(), "col_idx");
    expect_bitwise_equal(d.slice_ptr(), h.slice_ptr(), "slice_ptr");
    expect_bitwise_equal(d.row_len(), h.row_len(), "row_len");
    expect_bitwise_equal(d.perm(), h.perm(), "perm");
  }
  // The same refusal of an overflowing value.
  const T big = std::is_same_v<T, double> ? static_cast<T>(1e39) : std::numeric_limits<T>::max();
  const Csr<T, I> B = one_row<T, I>({T{1}, big});
  const std::string host = message_of([&] { (void)to_sell_lp(B); });
  const std::string device = message_of([&] { (void)to_sell_lp(B.to(Space::Device)); });
  EXPECT_EQ(device, host);
}

}  // namespace
}  // namespace spx::test
