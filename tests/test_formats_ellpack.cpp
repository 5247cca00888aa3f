// ELL, SELL-C-σ / SELL-P, HLL, HYB and JAD: exact round trips through CSR on
// every test matrix and many parameter choices (the converted arrays are
// also re-validated by each format's checking constructor), the storage
// layout and bytes() of a small example worked out by hand (the one drawn in
// docs/formats.md), validation messages, refusals (budget, index overflow,
// bad options), the parameter rules (σ windows, SELL-P widths, partial
// hacks, Bell and Garland's K), and products that must not let an infinite x
// entry leak through padding. The SpMV kernels themselves are run on every
// test matrix by test_spmv.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "core/padded_size.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(EllpackFormats);

template <class T>
std::vector<T> vec(const Array<T>& a) {
  return a.to_vector();
}

/// Rebuilds a converted matrix through its validating constructor (the
/// conversion's output must satisfy every invariant the format documents).
template <Value T, Index I>
void revalidate(const Ell<T, I>& m) {
  Ell<T, I>(m.rows(), m.cols(), m.width(), m.col_idx().clone(), m.values().clone(),
            m.row_len().clone());
}
template <Value T, Index I>
void revalidate(const Sell<T, I>& m) {
  Sell<T, I>(m.rows(), m.cols(), m.slice_size(), m.sigma(), m.threads_per_row(),
             m.slice_ptr().clone(), m.slice_width().clone(), m.col_idx().clone(),
             m.values().clone(), m.row_len().clone(), m.perm().clone());
}
template <Value T, Index I>
void revalidate(const Hll<T, I>& m) {
  Hll<T, I>(m.rows(), m.cols(), m.hack_size(), m.hack_ptr().clone(), m.col_idx().clone(),
            m.values().clone(), m.row_len().clone());
}
template <Value T, Index I>
void revalidate(const Hyb<T, I>& m) {
  revalidate(m.ell());
  Hyb<T, I>(m.ell().clone(), m.coo().clone());
}
template <Value T, Index I>
void revalidate(const Jad<T, I>& m) {
  Jad<T, I>(m.rows(), m.cols(), m.perm().clone(), m.jd_ptr().clone(), m.col_idx().clone(),
            m.values().clone());
}

struct Variant {
  Format format;
  ConvertOptions options;
  std::string name;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  const auto add = [&](Format f, std::string name, auto&& set) {
    ConvertOptions o;
    set(o);
    v.push_back({f, o, std::move(name)});
  };
  add(Format::Ell, "ELL", [](ConvertOptions&) {});
  for (int C : {1, 4, 32})
    for (int sigma : {1, C, 8 * C})
      for (int tpr : {1, 4})
        add(Format::Sell, fmt::format("SELL C={} sigma={} tpr={}", C, sigma, tpr),
            [=](ConvertOptions& o) {
              o.slice_size = C;
              o.sigma = sigma;
              o.threads_per_row = tpr;
            });
  for (int H : {1, 7, 32})
    add(Format::Hll, fmt::format("HLL H={}", H), [=](ConvertOptions& o) { o.hack_size = H; });
  for (std::int64_t K : {-1, 0, 1, 3, 1000000})
    add(Format::Hyb, fmt::format("HYB K={}", K), [=](ConvertOptions& o) { o.hyb_width = K; });
  add(Format::Jad, "JAD", [](ConvertOptions&) {});
  return v;
}

TYPED_TEST(EllpackFormats, RoundTripIsExactOnEveryTestMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  int converted = 0;
  for (const auto& [name, A] : all_test_matrices<T, I>()) {
    for (const auto& v : variants()) {
      const std::string what = name + " as " + v.name;
      Matrix<T, I> m;
      try {
        m = convert(A, v.format, v.options);
      } catch (const Unsupported& e) {
        // By design: only ELL (and HYB with an override) pad to the longest
        // row; log the reason.
        std::printf("[  SKIP    ] %s: %s\n", what.c_str(), e.what());
        EXPECT_TRUE(v.format == Format::Ell || v.format == Format::Hyb) << what << ": " << e.what();
        continue;
      }
      ++converted;
      std::visit(
          [&](const auto& f) {
            EXPECT_EQ(f.nnz(), A.nnz()) << what;
            EXPECT_EQ(f.rows(), A.rows()) << what;
            EXPECT_EQ(f.cols(), A.cols()) << what;
            // The ELLPACK family (the formats this file covers) rebuilds through
            // its validating constructor; other formats have their own tests.
            if constexpr (requires { revalidate(f); }) {
              EXPECT_NO_THROW(revalidate(f)) << what;
              expect_same_csr(to_csr(f), A, what);
              expect_same_csr(to_csr(f.clone()), A, what + " (clone)");
            }
          },
          m);
      expect_same_csr(to_csr<T, I>(spx::ref(m)), A, what + " (generic)");
    }
  }
  EXPECT_GT(converted, 0);
}

// ---- the example of docs/formats.md, worked out by hand ----------------------
//
//       [ 1 . 2 . ]
//   A = [ . . . . ]    row lengths 2, 0, 4, 2; nnz = 8
//       [ 3 4 5 6 ]
//       [ . 7 . 8 ]
template <Value T, Index I>
Csr<T, I> example() {
  return Csr<T, I>(4, 4, Array<I>{0, 2, 2, 6, 8}, Array<I>{0, 2, 0, 1, 2, 3, 1, 3},
                   Array<T>{1, 2, 3, 4, 5, 6, 7, 8});
}

template <class I>
std::vector<I> ints(std::initializer_list<int> v) {
  return std::vector<I>(v.begin(), v.end());
}
template <class T>
std::vector<T> reals(std::initializer_list<double> v) {
  std::vector<T> out;
  for (double d : v)
    out.push_back(static_cast<T>(d));
  return out;
}

TYPED_TEST(EllpackFormats, ExampleLayoutsAndFootprints) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const std::size_t v = sizeof(T), i = sizeof(I);
  const auto A = example<T, I>();
  EXPECT_EQ(A.bytes(), 8 * (v + i) + 5 * i);

  const auto ell = to_ell(A);
  EXPECT_EQ(ell.width(), 4);
  EXPECT_EQ(vec(ell.col_idx()), ints<I>({0, 0, 0, 1, 2, 0, 1, 3, 2, 0, 2, 3, 2, 0, 3, 3}));
  EXPECT_EQ(vec(ell.values()), reals<T>({1, 0, 3, 7, 2, 0, 4, 8, 0, 0, 5, 0, 0, 0, 6, 0}));
  EXPECT_EQ(vec(ell.row_len()), ints<I>({2, 0, 4, 2}));
  EXPECT_EQ(ell.bytes(), 4 * 4 * (v + i) + 4 * i);  // rows·K·(s_v + s_i) + rows·s_i

  ConvertOptions so;
  so.slice_size = 2;
  so.sigma = 4;
  const auto sell = to_sell(A, so);
  EXPECT_EQ(vec(sell.perm()), ints<I>({2, 0, 3, 1}));
  EXPECT_EQ(vec(sell.slice_ptr()), ints<I>({0, 8, 12}));
  EXPECT_EQ(vec(sell.slice_width()), ints<I>({4, 2}));
  EXPECT_EQ(vec(sell.row_len()), ints<I>({4, 2, 2, 0}));
  EXPECT_EQ(vec(sell.col_idx()), ints<I>({0, 0, 1, 2, 2, 2, 3, 2, 1, 0, 3, 0}));
  EXPECT_EQ(vec(sell.values()), reals<T>({3, 1, 4, 2, 5, 0, 6, 0, 7, 0, 8, 0}));
  // Σ C·w_s·(s_v + s_i) + (2·slices + 1)·s_i + rows·s_i (row_len) + rows·s_i (perm)
  EXPECT_EQ(sell.bytes(), 12 * (v + i) + 5 * i + 4 * i + 4 * i);
  // SELL-P: two threads per row round the second slice's width 2 up to 2
  // and the first's 4 to 4; three threads round them to 6 and 3.
  so.threads_per_row = 3;
  const auto sellp = to_sell(A, so);
  EXPECT_EQ(vec(sellp.slice_width()), ints<I>({6, 3}));
  EXPECT_EQ(vec(sellp.slice_ptr()), ints<I>({0, 12, 18}));
  // σ = 1: original order, no permutation array.
  so = {};
  so.slice_size = 2;
  const auto sell1 = to_sell(A, so);
  EXPECT_TRUE(sell1.perm().empty());
  EXPECT_EQ(vec(sell1.slice_width()), ints<I>({2, 4}));
  EXPECT_EQ(sell1.bytes(), 12 * (v + i) + 5 * i + 4 * i);

  ConvertOptions ho;
  ho.hack_size = 2;
  const auto hll = to_hll(A, ho);
  EXPECT_EQ(vec(hll.hack_ptr()), ints<I>({0, 4, 12}));
  EXPECT_EQ(vec(hll.col_idx()), ints<I>({0, 0, 2, 0, 0, 1, 1, 3, 2, 3, 3, 3}));
  EXPECT_EQ(vec(hll.values()), reals<T>({1, 0, 2, 0, 3, 7, 4, 8, 5, 0, 6, 0}));
  EXPECT_EQ(vec(hll.row_len()), ints<I>({2, 0, 4, 2}));
  EXPECT_EQ(hll.bytes(),
            12 * (v + i) + 3 * i + 4 * i);  // Σ rows_h·w_h·(s_v+s_i) + (hacks+1 + rows)·s_i
  // A partial last hack: H = 3 gives hacks of 3 rows (width 4) and 1 row (width 2).
  ho.hack_size = 3;
  const auto hll3 = to_hll(A, ho);
  EXPECT_EQ(vec(hll3.hack_ptr()), ints<I>({0, 12, 14}));
  EXPECT_EQ(vec(hll3.col_idx()).back(), I{3});

  const auto hyb = to_hyb(A);  // Bell–Garland: 3 of 4 rows have >= 2 entries, 1 has >= 3
  EXPECT_EQ(hyb.width(), 2);
  EXPECT_EQ(vec(hyb.ell().col_idx()), ints<I>({0, 0, 0, 1, 2, 0, 1, 3}));
  EXPECT_EQ(vec(hyb.ell().values()), reals<T>({1, 0, 3, 7, 2, 0, 4, 8}));
  EXPECT_EQ(vec(hyb.ell().row_len()), ints<I>({2, 0, 2, 2}));
  EXPECT_EQ(vec(hyb.coo().row_idx()), ints<I>({2, 2}));
  EXPECT_EQ(vec(hyb.coo().col_idx()), ints<I>({2, 3}));
  EXPECT_EQ(vec(hyb.coo().values()), reals<T>({5, 6}));
  // ELL part rows·K·(s_v + s_i) + rows·s_i, COO part nnz_coo·(s_v + 2·s_i)
  EXPECT_EQ(hyb.bytes(), 4 * 2 * (v + i) + 4 * i + 2 * (v + 2 * i));

  const auto jad = to_jad(A);
  EXPECT_EQ(vec(jad.perm()), ints<I>({2, 0, 3, 1}));
  EXPECT_EQ(vec(jad.jd_ptr()), ints<I>({0, 3, 6, 7, 8}));
  EXPECT_EQ(vec(jad.col_idx()), ints<I>({0, 0, 1, 1, 2, 3, 2, 3}));
  EXPECT_EQ(vec(jad.values()), reals<T>({3, 1, 7, 4, 2, 8, 5, 6}));
  EXPECT_EQ(jad.bytes(), 8 * (v + i) + 5 * i + 4 * i);  // nnz·(s_v+s_i) + (ndiag+1)·s_i + rows·s_i
}

// ---- parameters ----------------------------------------------------------------

TYPED_TEST(EllpackFormats, SellSortsWithinSigmaWindowsAndPadsToThreadsPerRow) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : handmade_matrices<T, I>()) {
    for (int C : {2, 8}) {
      for (int sigma : {1, C, 4 * C}) {
        ConvertOptions o;
        o.slice_size = C;
        o.sigma = sigma;
        o.threads_per_row = 3;
        const auto S = to_sell(A, o);
        const std::string what = fmt::format("{} C={} sigma={}", name, C, sigma);
        EXPECT_EQ(S.slice_size(), C);
        EXPECT_EQ(S.sigma(), sigma);
        EXPECT_EQ(S.num_slices(), (A.rows() + C - 1) / C) << what;
        const auto ptr = vec(A.row_ptr());
        const auto len = vec(S.row_len());
        const auto perm = vec(S.perm());
        if (A.rows() > 0) {
          EXPECT_EQ(perm.empty(), sigma == 1) << what;
        }
        for (std::int64_t i = 0; i < A.rows(); ++i) {
          const std::int64_t row = perm.empty() ? i : perm[i];
          EXPECT_EQ(len[i], ptr[row + 1] - ptr[row]) << what;
          EXPECT_EQ(row / sigma, i / sigma) << what;
          // Decreasing lengths inside a window; ties keep the original order.
          if (i % sigma != 0) {
            EXPECT_GE(len[i - 1], len[i]) << what;
            if (len[i - 1] == len[i]) {
              EXPECT_LT(perm[i - 1], perm[i]) << what;
            }
          }
        }
        const auto w = vec(S.slice_width());
        for (std::int64_t s = 0; s < S.num_slices(); ++s) {
          EXPECT_EQ(w[s] % 3, 0) << what;
          std::int64_t longest = 0;
          for (std::int64_t i = s * C; i < std::min<std::int64_t>(A.rows(), (s + 1) * C); ++i)
            longest = std::max<std::int64_t>(longest, len[i]);
          EXPECT_EQ(w[s], (longest + 2) / 3 * 3) << what;
        }
      }
    }
  }
}

TEST(EllpackSizes, BellGarlandWidth) {
  const auto K = [](std::vector<std::int64_t> lengths) {
    std::vector<std::int32_t> ptr{0};
    for (auto l : lengths)
      ptr.push_back(static_cast<std::int32_t>(ptr.back() + l));
    return detail::bell_garland_width(ptr.data(), static_cast<std::int64_t>(lengths.size()));
  };
  EXPECT_EQ(K({}), 0);
  EXPECT_EQ(K({0, 0, 0}), 0);
  EXPECT_EQ(K({3, 3, 3, 3}), 3);
  EXPECT_EQ(K({5, 1, 1}), 5);     // one of three rows is a third
  EXPECT_EQ(K({9, 1, 1, 1}), 1);  // one of four is not
  EXPECT_EQ(K({9, 0, 0, 0}), 0);
  EXPECT_EQ(K({2, 0, 4, 2}), 2);           // the example of docs/formats.md
  EXPECT_EQ(K({7, 6, 1, 1, 1, 1}), 6);     // two of six rows reach 6
  EXPECT_EQ(K({7, 6, 1, 1, 1, 1, 1}), 1);  // two of seven do not
}

TYPED_TEST(EllpackFormats, HybWidthOverrideAndExtremeSplits) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = example<T, I>();
  ConvertOptions o;
  o.hyb_width = 0;  // everything in the COO part
  auto H = to_hyb(A, o);
  EXPECT_EQ(H.width(), 0);
  EXPECT_EQ(H.ell().nnz(), 0);
  EXPECT_EQ(H.coo().nnz(), 8);
  EXPECT_TRUE(H.coo().sorted());
  o.hyb_width = 4;  // the longest row: the COO part is empty
  H = to_hyb(A, o);
  EXPECT_EQ(H.width(), 4);
  EXPECT_EQ(H.coo().nnz(), 0);
  o.hyb_width = 100;  // clamped to the longest row
  EXPECT_EQ(to_hyb(A, o).width(), 4);
  o.hyb_width = 3;
  H = to_hyb(A, o);
  EXPECT_EQ(H.coo().nnz(), 1);
  EXPECT_EQ(vec(H.coo().col_idx()), ints<I>({3}));
}

TYPED_TEST(EllpackFormats, InvalidOptionsAreRejected) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = example<T, I>();
  ConvertOptions o;
  o.slice_size = 0;
  expect_error([&] { to_sell(A, o); }, {"slice_size"});
  o = {};
  o.slice_size = 4;
  o.sigma = 6;
  expect_error([&] { to_sell(A, o); }, {"sigma = 6"});
  o = {};
  o.threads_per_row = 0;
  expect_error([&] { to_sell(A, o); }, {"threads_per_row"});
  o = {};
  o.hack_size = 0;
  expect_error([&] { to_hll(A, o); }, {"hack_size"});
  o = {};
  o.hyb_width = -2;
  expect_error([&] { to_hyb(A, o); }, {"hyb_width"});
}

// ---- refusals ----------------------------------------------------------------

/// n×n: a diagonal plus one dense row (row 1).
template <Value T, Index I>
Csr<T, I> diagonal_plus_dense_row(I n, I dense_len) {
  std::vector<I> ptr{0}, col;
  for (I r = 0; r < n; ++r) {
    if (r == 1) {
      for (I c = 0; c < dense_len; ++c)
        col.push_back(c);
    } else {
      col.push_back(r);
    }
    ptr.push_back(static_cast<I>(col.size()));
  }
  std::vector<T> val(col.size(), T{1});
  return Csr<T, I>(n, n, Array<I>(ptr), Array<I>(col), Array<T>(val));
}

TYPED_TEST(EllpackFormats, PaddedFormatsRefuseBeyondTheBudget) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = diagonal_plus_dense_row<T, I>(1000, 1000);
  ConvertOptions o;
  o.max_bytes_floor = 1 << 20;
  o.max_expansion = 20;
  // ELL: 1000 × 1000 padded entries, far above the 1 MiB floor and 20 × CSR.
  try {
    to_ell(A, o);
    ADD_FAILURE() << "expected Unsupported";
  } catch (const Unsupported& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("1000 rows x width 1000"), std::string::npos) << msg;
    EXPECT_NE(msg.find("= 1000000 stored values"), std::string::npos) << msg;
    EXPECT_NE(
        msg.find(fmt::format("{} bytes", 1000000 * (sizeof(T) + sizeof(I)) + 1000 * sizeof(I))),
        std::string::npos)
        << msg;
    EXPECT_NE(msg.find("max_expansion"), std::string::npos) << msg;
  }
  // The same matrix fits SELL, HLL (one wide slice/hack), HYB (K = 1) and JAD.
  EXPECT_NO_THROW(to_sell(A, o));
  EXPECT_NO_THROW(to_hll(A, o));
  EXPECT_EQ(to_hyb(A, o).width(), 1);
  EXPECT_NO_THROW(to_jad(A, o));
  // ... unless the budget is tiny, or HYB is forced wide.
  ConvertOptions tiny = o;
  tiny.max_bytes_floor = 0;
  tiny.max_expansion = 1.0;
  EXPECT_THROW(to_sell(A, tiny), Unsupported);
  EXPECT_THROW(to_hll(A, tiny), Unsupported);
  ConvertOptions wide = o;
  wide.hyb_width = 1000;
  EXPECT_THROW(to_hyb(A, wide), Unsupported);
  // A raised budget lets ELL through.
  ConvertOptions big = o;
  big.max_expansion = 1e6;
  EXPECT_EQ(to_ell(A, big).width(), 1000);
}

TEST(EllpackSizes, IndexOverflowIsDetectedBeforeAllocating) {
  const std::int64_t max32 = std::numeric_limits<std::int32_t>::max();
  EXPECT_NO_THROW(detail::require_index_fits<std::int32_t>("ELL", "rows x width", max32));
  try {
    detail::require_index_fits<std::int32_t>("ELL", "rows x width", max32 + 1);
    ADD_FAILURE() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("index overflow"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2147483648"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(detail::require_index_fits<std::int64_t>("ELL", "x", max32 * 1000));
  // 3·10^9 rows × 4·10^9 columns overflows int64 itself.
  EXPECT_EQ(detail::padded_mul("ELL", "x", 65536, 32768), std::int64_t{1} << 31);
  EXPECT_THROW(detail::padded_mul("ELL", "x", 3'000'000'000, 4'000'000'000), Unsupported);
  EXPECT_THROW(detail::padded_add("SELL", "x", std::numeric_limits<std::int64_t>::max(), 1),
               Unsupported);
}

TEST(EllpackSizes, ConversionPastTwoToThe31RefusesWithIndexOverflow) {
  // 70000 × 70000 with one row of 40000 entries: ELL would store 2.8·10^9
  // entries. The CSR is small; the refusal comes before any allocation.
  const auto A32 = diagonal_plus_dense_row<float, std::int32_t>(70000, 40000);
  try {
    to_ell(A32);
    ADD_FAILURE() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_NE(std::string(e.what()).find("index overflow"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("2800000000"), std::string::npos) << e.what();
  }
  ConvertOptions wide;
  wide.hyb_width = 40000;
  EXPECT_THROW(to_hyb(A32, wide), Unsupported);
  // With 64-bit indices the offsets fit, and the budget refuses instead.
  const auto A64 = diagonal_plus_dense_row<float, std::int64_t>(70000, 40000);
  try {
    to_ell(A64);
    ADD_FAILURE() << "expected Unsupported";
  } catch (const Unsupported& e) {
    EXPECT_EQ(std::string(e.what()).find("index overflow"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("budget"), std::string::npos) << e.what();
  }
}

// ---- validation --------------------------------------------------------------

template <class T>
Array<T> with(const Array<T>& a, std::size_t k, T v) {
  auto out = a.clone();
  out[k] = v;
  return out;
}

TYPED_TEST(EllpackFormats, EllValidatesItsArrays) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto e = to_ell(example<T, I>());
  const auto make = [&](Array<I> col, Array<T> val, Array<I> len, I width = 4) {
    return Ell<T, I>(4, 4, width, std::move(col), std::move(val), std::move(len));
  };
  EXPECT_NO_THROW(make(e.col_idx().clone(), e.values().clone(), e.row_len().clone()));
  expect_error([&] { make(with(e.col_idx(), 5, I{4}), e.values().clone(), e.row_len().clone()); },
               {"col_idx[5] = 4 (row 1, entry 1, padding) is out of range [0, 4)"});
  expect_error([&] { make(with(e.col_idx(), 4, I{0}), e.values().clone(), e.row_len().clone()); },
               {"not strictly increasing in row 0"});
  expect_error([&] { make(e.col_idx().clone(), with(e.values(), 8, T{1}), e.row_len().clone()); },
               {"values[8] = 1 is a padding entry (row 0, entry 2 >= row length 2)"});
  expect_error([&] { make(e.col_idx().clone(), e.values().clone(), with(e.row_len(), 1, I{5})); },
               {"row_len[1] = 5 is out of range [0, 4]"});
  expect_error([&] { make(e.col_idx().clone(), e.values().clone(), e.row_len().clone(), 3); },
               {"rows x width = 4 x 3 = 12 entries"});
  expect_error(
      [&] {
        make(e.col_idx().clone(), e.values().clone(), Array<I>{2, 0, 4});
      },
      {"row_len has 3 entries"});
}

TYPED_TEST(EllpackFormats, SellValidatesItsArrays) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  ConvertOptions o;
  o.slice_size = 2;
  o.sigma = 4;
  const auto s = to_sell(example<T, I>(), o);
  const auto make = [&](int C, int sigma, int tpr, Array<I> ptr, Array<I> width, Array<I> col,
                        Array<T> val, Array<I> perm) {
    return Sell<T, I>(4, 4, C, sigma, tpr, std::move(ptr), std::move(width), std::move(col),
                      std::move(val), s.row_len().clone(), std::move(perm));
  };
  const auto ok = [&] {
    return make(2, 4, 1, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
                s.values().clone(), s.perm().clone());
  };
  EXPECT_NO_THROW(ok());
  expect_error(
      [&] {
        make(2, 3, 1, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
             s.values().clone(), s.perm().clone());
      },
      {"sigma = 3 must be 1 or a positive multiple of the slice size C = 2"});
  expect_error(
      [&] {
        make(2, 4, 3, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
             s.values().clone(), s.perm().clone());
      },
      {"slice_width[0] = 4 must be a non-negative multiple of threads_per_row = 3"});
  expect_error(
      [&] {
        make(2, 4, 1, Array<I>{0, 6, 12}, s.slice_width().clone(), s.col_idx().clone(),
             s.values().clone(), s.perm().clone());
      },
      {"slice_ptr[1] - slice_ptr[0] = 6 - 0, expected C x slice_width[0] = 2 x 4"});
  expect_error(
      [&] {
        make(2, 4, 1, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
             s.values().clone(), Array<I>{2, 0, 2, 1});
      },
      {"perm[2] = 2 repeats an earlier entry"});
  expect_error(
      [&] {
        make(2, 4, 1, s.slice_ptr().clone(), s.slice_width().clone(), with(s.col_idx(), 11, I{-1}),
             s.values().clone(), s.perm().clone());
      },
      {"col_idx[11] = -1 (row 3, entry 1, padding) is out of range"});
  expect_error(
      [&] {
        make(2, 4, 1, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
             with(s.values(), 9, T{2}), s.perm().clone());
      },
      {"values[9] = 2 is a padding entry"});
  // σ = 2 windows: stored row 2 (original 3) may not come from the first window.
  ConvertOptions o2;
  o2.slice_size = 2;
  o2.sigma = 2;
  const auto s2 = to_sell(example<T, I>(), o2);
  EXPECT_NO_THROW(revalidate(s2));
  expect_error(
      [&] {
        make(2, 2, 1, s.slice_ptr().clone(), s.slice_width().clone(), s.col_idx().clone(),
             s.values().clone(), s.perm().clone());
      },
      {"moves a row out of its window of sigma = 2 rows"});
}

TYPED_TEST(EllpackFormats, HllValidatesItsArrays) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  ConvertOptions o;
  o.hack_size = 3;
  const auto h = to_hll(example<T, I>(), o);  // hacks of 3 rows (width 4) and 1 row (width 2)
  const auto make = [&](int H, Array<I> ptr, Array<I> col) {
    return Hll<T, I>(4, 4, H, std::move(ptr), std::move(col), h.values().clone(),
                     h.row_len().clone());
  };
  EXPECT_NO_THROW(make(3, h.hack_ptr().clone(), h.col_idx().clone()));
  expect_error(
      [&] {
        make(3, Array<I>{0, 13, 14}, h.col_idx().clone());
      },
      {"hack_ptr[1] - hack_ptr[0] = 13 - 0 must be a non-negative multiple of the "
       "hack's 3 rows"});
  expect_error([&] { make(1, h.hack_ptr().clone(), h.col_idx().clone()); },
               {"hack_ptr has 3 entries, expected ceil(rows / H) + 1 = ceil(4 / 1) + 1 = 5"});
  expect_error([&] { make(0, h.hack_ptr().clone(), h.col_idx().clone()); },
               {"hack_size = 0 must be at least 1"});
  expect_error([&] { make(3, h.hack_ptr().clone(), with(h.col_idx(), 13, I{0})); },
               {"not strictly increasing in row 3"});
}

TYPED_TEST(EllpackFormats, HybValidatesItsParts) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto h = to_hyb(example<T, I>());  // K = 2, COO part (2,2) (2,3)
  const auto coo = [&](std::vector<I> r, std::vector<I> c) {
    return Coo<T, I>(4, 4, Array<I>(r), Array<I>(c), Array<T>(std::vector<T>(r.size(), T{1})));
  };
  EXPECT_NO_THROW((Hyb<T, I>(h.ell().clone(), coo({2, 2}, {2, 3}))));
  expect_error(
      [&] {
        Hyb<T, I>(h.ell().clone(), coo({2, 2}, {3, 2}));
      },
      {"COO part must be sorted"});
  expect_error([&] { Hyb<T, I>(h.ell().clone(), coo({1}, {3})); },
               {"COO entry 0 is in row 1, whose ELL part is not full"});
  expect_error([&] { Hyb<T, I>(h.ell().clone(), coo({2}, {1})); },
               {"COO entry 0 (row 2, column 1) is not right of the row's last ELL column 1"});
  expect_error(
      [&] { Hyb<T, I>(h.ell().clone(), Coo<T, I>(4, 5, Array<I>{}, Array<I>{}, Array<T>{})); },
      {"the ELL part is 4x4 but the COO part is 4x5"});
}

TYPED_TEST(EllpackFormats, JadValidatesItsArrays) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto j = to_jad(example<T, I>());
  const auto make = [&](Array<I> perm, Array<I> ptr, Array<I> col) {
    return Jad<T, I>(4, 4, std::move(perm), std::move(ptr), std::move(col), j.values().clone());
  };
  EXPECT_NO_THROW(make(j.perm().clone(), j.jd_ptr().clone(), j.col_idx().clone()));
  expect_error(
      [&] {
        make(Array<I>{2, 0, 3, 4}, j.jd_ptr().clone(), j.col_idx().clone());
      },
      {"perm[3] = 4 is out of range [0, 4)"});
  expect_error(
      [&] {
        make(j.perm().clone(), Array<I>{0, 3, 4, 6, 8}, j.col_idx().clone());
      },
      {"jagged diagonal 2 has jd_ptr[3] - jd_ptr[2] = 2 entries; expected between 1 "
       "and 1"});
  expect_error(
      [&] {
        make(j.perm().clone(), Array<I>{0, 3, 6, 6, 8}, j.col_idx().clone());
      },
      {"jagged diagonal 2 has jd_ptr[3] - jd_ptr[2] = 0 entries"});
  expect_error(
      [&] {
        make(j.perm().clone(), Array<I>{0, 5, 6, 7, 8}, j.col_idx().clone());
      },
      {"jagged diagonal 0 has jd_ptr[1] - jd_ptr[0] = 5 entries"});
  expect_error([&] { make(j.perm().clone(), j.jd_ptr().clone(), with(j.col_idx(), 3, I{0})); },
               {"not strictly increasing in stored row 0 (original row 2)"});
  expect_error([&] { make(j.perm().clone(), j.jd_ptr().clone(), with(j.col_idx(), 7, I{4})); },
               {"col_idx[7] = 4 (stored row 0, diagonal 3) is out of range [0, 4)"});
}

// ---- products ------------------------------------------------------------------

/// A padding entry must not turn an infinite x entry into NaN in a row that
/// does not use that column (padding of an empty row points at column 0).
TYPED_TEST(EllpackFormats, InfiniteXDoesNotLeakThroughPadding) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Row 0 uses column 0; rows 1..39 are empty or use column 1 only.
  std::vector<I> ptr{0, 1}, col{0};
  for (I r = 1; r < 40; ++r) {
    if (r % 2 == 0) col.push_back(1);
    ptr.push_back(static_cast<I>(col.size()));
  }
  const Csr<T, I> A(40, 2, Array<I>(ptr), Array<I>(col),
                    Array<T>(std::vector<T>(col.size(), T{2})));
  const std::vector<T> x{std::numeric_limits<T>::infinity(), T{3}};
  for (const auto& v : variants()) {
    const Matrix<T, I> m = convert(A, v.format, v.options);
    std::vector<T> y(40, std::numeric_limits<T>::quiet_NaN());
    spmv(T{1}, m, x, T{0}, y);
    EXPECT_EQ(y[0], std::numeric_limits<T>::infinity()) << v.name;
    for (I r = 1; r < 40; ++r)
      EXPECT_EQ(y[r], r % 2 == 0 ? T{6} : T{0}) << v.name << " row " << r;
  }
}

/// test_spmv.cpp runs every kernel with the default options; this runs every
/// parameter variant (σ > 1, SELL-P widths, odd hack sizes, every HYB split)
/// on every test matrix against the reference, with y poisoned for beta = 0.
TYPED_TEST(EllpackFormats, ProductsMatchTheReferenceForEveryVariant) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (const auto& [name, A] : all_test_matrices<T, I>()) {
    const std::uint64_t seed = fresh_seed();
    const auto x = random_values<T>(A.cols(), seed);
    const auto y0 = random_values<T>(A.rows(), seed + 1);
    const Product product = reference::product(A, std::span<const T>(x));
    for (const auto& v : variants()) {
      Matrix<T, I> m;
      try {
        m = convert(A, v.format, v.options);
      } catch (const Unsupported&) {
        continue;  // logged by RoundTripIsExactOnEveryTestMatrix
      }
      if (!matches_over_grid(kScalars.first(2), product, y0,
                             fmt::format("{} as {}, seed={}", name, v.name, seed), on_host(m, x),
                             [](const RunInfo&, const std::string&) {}))
        return;
    }
  }
}

/// Products on the example with every variant: small integers make the
/// results exact, and the permuted formats must write the original rows.
TYPED_TEST(EllpackFormats, ExampleProductsAreExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = example<T, I>();
  const std::vector<T> x{1, 2, 3, 4};
  // A·x = (1+6, 0, 3+8+15+24, 14+32) = (7, 0, 50, 46)
  for (const auto& v : variants()) {
    const Matrix<T, I> m = convert(A, v.format, v.options);
    std::vector<T> y{1, 1, 1, 1};
    const RunInfo info = spmv(T{2}, m, x, T{-1}, y);
    EXPECT_EQ(info.algorithm, Algorithm::CpuRows) << v.name;
    EXPECT_EQ(y, (std::vector<T>{13, -1, 99, 91})) << v.name;
  }
}

}  // namespace
}  // namespace spx::test
