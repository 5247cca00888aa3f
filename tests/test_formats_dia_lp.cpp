// DIA-LP (dia_lp.hpp): the conversions and their refusals (overflow, DIA's
// fill limit), entries that round to zero, the documented error bound on the
// host and the device (met, not vacuous, and exceeding the full-precision
// bound, so the kernel tests' widened check is needed and can fail), empty
// rows, NaN poisoning, the opt-in rule of the advisor and the plan, and the
// device conversion against the host one. The rounding helpers themselves
// are SELL-LP's (test_formats_sell_lp.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
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

SPX_TYPED_TEST_SUITE(DiaLpFormat);

/// rows × cols with `ndiag` random diagonals (offsets in [-spread, spread]),
/// each position inside the matrix an entry with probability 0.9, rows
/// i % 7 == 3 left empty; values ±10^U(-decades, decades).
template <Value T, Index I>
Csr<T, I> banded_csr(std::int64_t rows, std::int64_t cols, int ndiag, std::int64_t spread,
                     double decades, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> e(-decades, decades);
  std::vector<std::int64_t> off;
  while (static_cast<int>(off.size()) < ndiag) {
    const auto o =
        static_cast<std::int64_t>(gen() % static_cast<std::uint64_t>(2 * spread + 1)) - spread;
    if (std::find(off.begin(), off.end(), o) == off.end()) off.push_back(o);
  }
  std::sort(off.begin(), off.end());
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t r = 0; r < rows; ++r) {
    if (r % 7 != 3)
      for (std::int64_t o : off) {
        const std::int64_t c = r + o;
        if (c < 0 || c >= cols || gen() % 10 == 0) continue;
        col.push_back(static_cast<I>(c));
        val.push_back(static_cast<T>((gen() & 1 ? 1.0 : -1.0) * std::pow(10.0, e(gen))));
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

/// A nonzero of T that rounds to zero in the storage type (below its
/// subnormals): 1e-50 for double → float, a float subnormal for bfloat16.
template <Value T>
T flushed_value() {
  return std::is_same_v<T, double> ? static_cast<T>(1e-50) : static_cast<T>(1e-44);
}

TYPED_TEST(DiaLpFormat, RoundTripGivesTheRoundedValues) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Csr<T, I> A = banded_csr<T, I>(300, 250, 9, 40, 12, seed);
  const DiaLp<T, I> L = to_dia_lp(A);
  EXPECT_EQ(L.nnz(), A.nnz());
  EXPECT_EQ(L.space(), Space::Host);
  // DIA's layout, its values rounded.
  const Dia<T, I> D = to_dia(A);
  EXPECT_EQ(L.offsets().to_vector(), D.offsets().to_vector());
  EXPECT_EQ(L.ndiag(), D.ndiag());
  const auto dv = D.values().to_vector();
  const auto lv = L.values().to_vector();
  ASSERT_EQ(lv.size(), dv.size());
  for (std::size_t k = 0; k < dv.size(); ++k)
    ASSERT_EQ(lowp::widen<T>(lv[k]), lowp::widen<T>(lowp::narrow<T>(dv[k]))) << k;
  EXPECT_EQ(L.bytes(), D.bytes() - dv.size() * (sizeof(T) - sizeof(reduced_value_t<T>)));
  // Back to CSR: the same entries, the values rounded.
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
  const DiaLp<T, I> V(L.rows(), L.cols(), L.offsets().clone(), L.values().clone(),
                      L.explicit_zeros().to(Space::Host));
  EXPECT_EQ(V.nnz(), L.nnz());
  // And the generic entry points know the format.
  const Matrix<T, I> M = convert(A, Format::DiaLp);
  EXPECT_EQ((format_of<T, I>(ref(M))), Format::DiaLp);
  EXPECT_TRUE(reduced_precision(Format::DiaLp));
  EXPECT_EQ(stored_value_roundoff<T>(Format::DiaLp), lowp::kUnitRoundoff<T>);
  EXPECT_EQ(to_string(Format::DiaLp), "dia_lp");
  EXPECT_EQ(parse_format("dia_lp"), Format::DiaLp);
}

TYPED_TEST(DiaLpFormat, EntriesThatRoundToZeroAreKept) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Columns 0..3: an explicit zero, a value that rounds to zero, a normal one
  // and a negative one that rounds to -0.
  const T tiny = flushed_value<T>();
  ASSERT_NE(tiny, T{0});
  ASSERT_EQ(lowp::widen<T>(lowp::narrow<T>(tiny)), T{0});
  const Csr<T, I> A = one_row<T, I>({T{0}, tiny, T{3}, -tiny});
  const DiaLp<T, I> L = to_dia_lp(A);
  EXPECT_EQ(L.nnz(), 4);
  EXPECT_EQ(L.explicit_zeros().cols.to_vector(), (std::vector<I>{0, 1, 3}));
  const Csr<T, I> B = to_csr(L);
  EXPECT_EQ(B.col_idx().to_vector(), A.col_idx().to_vector());
  const auto b = B.values().to_vector();
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0], T{0});
  EXPECT_EQ(b[1], T{0});
  EXPECT_EQ(b[2], T{3});
  EXPECT_EQ(b[3], T{0});
  EXPECT_TRUE(std::signbit(b[3]));
}

TYPED_TEST(DiaLpFormat, ConstructorRefusesNonZeroPadding) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // 2 x 2, the diagonal of offset 1: row 1's position (column 2) lies outside.
  const auto one = lowp::narrow<T>(T{1});
  expect_error(
      [&] {
        DiaLp<T, I>(I{2}, I{2}, Array<I>{I{1}}, Array<reduced_value_t<T>>{one, one});
      },
      {"DIA_LP", "values[1]"});
  const DiaLp<T, I> ok(I{2}, I{2}, Array<I>{I{1}},
                       Array<reduced_value_t<T>>{one, reduced_value_t<T>{0}});
  EXPECT_EQ(ok.nnz(), 1);
}

TYPED_TEST(DiaLpFormat, OverflowIsRefusedNamingTheEntry) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const T big = std::is_same_v<T, double> ? static_cast<T>(1e39) : std::numeric_limits<T>::max();
  const Csr<T, I> A = one_row<T, I>({T{1}, T{2}, big, T{3}});
  expect_error([&] { (void)to_dia_lp(A); },
               {"DIA_LP", "row 0", "column 2", fmt::format("{}", big), lowp::kStorageName<T>});
  // The largest storable value, ±inf and NaN convert (kept as they are).
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const auto largest = static_cast<T>(lowp::kLargest<T>);
  const DiaLp<T, I> L = to_dia_lp(one_row<T, I>({largest, -largest, inf, -inf, nan}));
  const auto back = to_csr(L).values().to_vector();
  ASSERT_EQ(back.size(), 5u);
  EXPECT_EQ(back[0], largest);
  EXPECT_EQ(back[1], -largest);
  EXPECT_EQ(back[2], inf);
  EXPECT_EQ(back[3], -inf);
  EXPECT_TRUE(std::isnan(back[4]));
}

TYPED_TEST(DiaLpFormat, FillLimitIsDias) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // An anti-diagonal: n diagonals of one entry each.
  const std::int64_t n = 400;
  std::vector<I> ptr{0}, col;
  std::vector<T> val;
  for (std::int64_t i = 0; i < n; ++i) {
    col.push_back(static_cast<I>(n - 1 - i));
    val.push_back(T{1});
    ptr.push_back(static_cast<I>(col.size()));
  }
  const Csr<T, I> A(static_cast<I>(n), static_cast<I>(n), Array<I>(ptr), Array<I>(col),
                    Array<T>(val));
  ConvertOptions o;
  o.max_bytes_floor = 0;
  o.max_expansion = 2;
  const std::string dia = message_of<Unsupported>([&] { (void)to_dia(A, o); });
  const std::string lp = message_of<Unsupported>([&] { (void)to_dia_lp(A, o); });
  EXPECT_FALSE(dia.empty());
  EXPECT_EQ(lp, dia);
}

/// The measured error of DIA-LP's SpMV in `space`, relative to its documented
/// bound and to the full-precision one, on a banded matrix whose values
/// spread over 15 decades each way, y NaN-poisoned where beta = 0, x fresh.
/// `matrix`: banded_csr of 2000 × 1500 with 24 diagonals when omitted.
template <Value T, Index I>
void check_bound(Space space, std::uint64_t seed, std::optional<Csr<T, I>> matrix = {}) {
  const Csr<T, I> A = matrix ? std::move(*matrix) : banded_csr<T, I>(2000, 1500, 24, 300, 15, seed);
  const DiaLp<T, I> L = to_dia_lp(A).to(space);
  const auto x = random_values<T>(A.cols(), seed + 1);
  const auto y0 = random_values<T>(A.rows(), seed + 2);
  const reference::Product p = reference::product(A, std::span<const T>(x));
  const double us = stored_value_roundoff<T>(Format::DiaLp);
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
    EXPECT_EQ(info.format, Format::DiaLp) << what;
    const std::vector<T> y = dy.to_vector();
    const reference::Expected<T> lp = reference::expected<T>(p, alpha, beta, y0, us);
    const reference::Expected<T> full = reference::expected<T>(p, alpha, beta, y0);
    EXPECT_EQ(expect_matches(y, lp, what), 0);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const long double err = std::fabs(static_cast<long double>(y[i]) - lp.y[i]);
      if (lp.bound[i] > 0) worst_lp = std::max(worst_lp, static_cast<double>(err / lp.bound[i]));
      if (full.bound[i] > 0)
        worst_full = std::max(worst_full, static_cast<double>(err / full.bound[i]));
      const long double scale = std::fabs(static_cast<long double>(alpha)) * p.magnitude[i];
      if (scale > 0) worst_us = std::max(worst_us, static_cast<double>(err / (us * scale)));
    }
  }
  EXPECT_LE(worst_lp, 1.0);     // within the documented bound ...
  EXPECT_GT(worst_us, 0.01);    // ... which is not vacuous ...
  EXPECT_GT(worst_full, 10.0);  // ... and far outside the full-precision one
}

TYPED_TEST(DiaLpFormat, ErrorWithinTheDocumentedBound) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  check_bound<T, I>(Space::Host, seed);
}

/// Also with more rows than a GPU holds threads: the CUDA kernel's
/// several-rows-per-thread shape (diag_rows.cuh, DiaShape), a partial last
/// tile, and (an even number of rows) its pairs of adjacent rows.
TYPED_TEST(DiaLpFormat, DeviceErrorWithinTheDocumentedBound) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  check_bound<T, I>(Space::Device, seed);
  check_bound<T, I>(Space::Device, seed, banded_csr<T, I>(600'001, 599'000, 5, 40, 15, seed));
  // An even number of rows and 17 diagonals: f64's pairs of adjacent rows
  // (dia_pairs_kernel).
  check_bound<T, I>(Space::Device, seed, banded_csr<T, I>(600'002, 600'002, 17, 40, 15, seed + 1));
}

TYPED_TEST(DiaLpFormat, BoundCheckFlagsAWrongResult) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const Csr<T, I> A = banded_csr<T, I>(200, 150, 8, 30, 6, seed);
  const auto x = random_values<T>(A.cols(), seed + 1);
  const reference::Product p = reference::product(A, std::span<const T>(x));
  const double us = stored_value_roundoff<T>(Format::DiaLp);
  // The full-precision values perturbed by 4·u_s each way.
  std::vector<T> v = A.values().to_vector();
  for (std::size_t k = 0; k < v.size(); ++k)
    v[k] = static_cast<T>(static_cast<long double>(v[k]) * (1 + (k % 2 ? 4 : -4) * us));
  const Csr<T, I> W(A.rows(), A.cols(), A.row_ptr().clone(), A.col_idx().clone(), Array<T>(v));
  std::vector<T> y(A.rows());
  spmv(T{1}, W, x, T{0}, y);
  EXPECT_GT(reference::deviation<T>(y, p, us).ratio, 1.0)
      << "a result off by 4 u_s must fail the DIA-LP bound";
  // While DIA-LP's own result passes, and fails the full-precision bound.
  std::vector<T> z(A.rows());
  spmv(T{1}, to_dia_lp(A), x, T{0}, z);
  EXPECT_LE(reference::deviation<T>(z, p, us).ratio, 1.0);
  EXPECT_GT(reference::deviation<T>(z, p).ratio, 1.0) << "the full-precision bound flags it";
}

/// Rows 0, 3, 4 empty; y NaN-poisoned, beta = 0 (SpMV in `space`, and SpMM on
/// the host).
template <Value T, Index I>
void check_empty_rows(Space space) {
  const Csr<T, I> A(I{7}, I{5}, Array<I>{0, 0, 2, 3, 3, 3, 5, 6}, Array<I>{0, 4, 2, 1, 3, 4},
                    Array<T>{T{1}, T{2}, T{3}, T{4}, T{5}, T{6}});
  const DiaLp<T, I> L = to_dia_lp(A).to(space);
  const std::vector<T> x{T{1}, T{10}, T{100}, T{1000}, T{10000}};
  Array<T> dy = Array<T>(std::vector<T>(7, std::numeric_limits<T>::quiet_NaN())).to(space);
  spmv(T{1}, L, Array<T>(x).to(space), T{0}, dy);
  const std::vector<T> y = dy.to_vector();
  const std::vector<T> want{0, 1 + 20000, 300, 0, 0, 40 + 5000, 60000};
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(y[i], want[i]) << "row " << i;
  if (space != Space::Host) return;
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

TYPED_TEST(DiaLpFormat, EmptyRowsAndPoisonedOutput) {
  check_empty_rows<typename TypeParam::value_type, typename TypeParam::index_type>(Space::Host);
}

TYPED_TEST(DiaLpFormat, DeviceEmptyRowsAndPoisonedOutput) {
  SPX_REQUIRE_GPU_OR_SKIP();
  check_empty_rows<typename TypeParam::value_type, typename TypeParam::index_type>(Space::Device);
}

TYPED_TEST(DiaLpFormat, AdvisorAndPlanUseItOnlyWhenAllowed) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const Csr<T, I> A = banded_csr<T, I>(3000, 3000, 9, 20, 2, 5);
  Workload work;
  work.products = 1000000;
  AdvisorOptions ao;
  ao.bandwidth_gbs = 100;
  ao.compute_scale = 1;
  const auto lp_candidates = [](const Advice& adv) {
    std::vector<const Candidate*> out;
    for (const Candidate& c : adv.candidates)
      if (c.format == Format::DiaLp) out.push_back(&c);
    return out;
  };
  const Advice off = advise(A, work, ao);
  EXPECT_NE(off.chosen().format, Format::DiaLp);
  ASSERT_FALSE(lp_candidates(off).empty());
  for (const Candidate* c : lp_candidates(off)) {
    EXPECT_FALSE(c->feasible);
    EXPECT_CONTAINS(c->reason, "allow_reduced_precision");
  }
  ao.allow_reduced_precision = true;
  const Advice on = advise(A, work, ao);
  for (const Candidate* c : lp_candidates(on)) {
    EXPECT_TRUE(c->feasible) << c->reason;
    // Fewer bytes than DIA's, and its converted size.
    for (const Candidate& s : on.candidates)
      if (s.format == Format::Dia) {
        EXPECT_LT(c->bytes, s.bytes);
      }
    EXPECT_EQ(static_cast<std::size_t>(c->bytes), to_dia_lp(A).bytes());
  }
  // Already in DIA-LP: the caller chose it.
  const Advice kept =
      advise(A, work, AdvisorOptions{.bandwidth_gbs = 100, .compute_scale = 1}, Format::DiaLp);
  for (const Candidate* c : lp_candidates(kept))
    EXPECT_TRUE(c->feasible) << c->reason;

  // Plans: never DIA-LP by default; forced, it is used.
  PlanOptions po;
  po.bandwidth_gbs = 100;
  po.compute_scale = 1;
  const Plan<T, I> plain(A, work, po);
  EXPECT_NE(plain.report().format, Format::DiaLp);
  po.format = Format::DiaLp;
  Plan<T, I> forced(A, work, po);
  EXPECT_EQ(forced.report().format, Format::DiaLp);
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

TYPED_TEST(DiaLpFormat, DeviceConversionMatchesTheHost) {
  SPX_REQUIRE_GPU_OR_SKIP();
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(seed);
  const auto same = [](const Csr<T, I>& A) {
    const DiaLp<T, I> h = to_dia_lp(A);
    const DiaLp<T, I> d = to_dia_lp(A.to(Space::Device));
    EXPECT_EQ(d.space(), Space::Device);
    EXPECT_EQ(d.nnz(), h.nnz());
    expect_bitwise_equal(d.offsets(), h.offsets(), "offsets");
    expect_bitwise_equal(d.values(), h.values(), "values");
    expect_bitwise_equal(d.explicit_zeros().rows, h.explicit_zeros().rows, "zeros.rows");
    expect_bitwise_equal(d.explicit_zeros().cols, h.explicit_zeros().cols, "zeros.cols");
  };
  same(banded_csr<T, I>(1000, 900, 11, 100, 12, seed));
  // Explicit zeros and entries that round to zero.
  same(one_row<T, I>({T{0}, flushed_value<T>(), T{3}, -flushed_value<T>(), T{0}}));
  // The same refusal of an overflowing value.
  const T big = std::is_same_v<T, double> ? static_cast<T>(1e39) : std::numeric_limits<T>::max();
  const Csr<T, I> B = one_row<T, I>({T{1}, big});
  const std::string host = message_of([&] { (void)to_dia_lp(B); });
  const std::string device = message_of([&] { (void)to_dia_lp(B.to(Space::Device)); });
  EXPECT_FALSE(host.empty());
  EXPECT_EQ(device, host);
}

}  // namespace
}  // namespace spx::test
