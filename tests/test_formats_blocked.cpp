// DIA, HDI and BCSR: exact round trips (explicit zeros included), the
// validating constructors, refusals with their sizes, footprints computed by
// hand, 64-bit size arithmetic, and the CPU kernels over several hack and
// block sizes (the registry-wide test in test_spmv.cpp uses the defaults only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common.hpp"
#include "core/padded.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "spx/convert.hpp"
#include "spx/formats/coo.hpp"
#include "spx/ops.hpp"

namespace spx::test {
namespace {

SPX_TYPED_TEST_SUITE(BlockedFormats);

template <Value T, Index I>
std::int64_t count_zero_values(const Csr<T, I>& A) {
  std::int64_t z = 0;
  for (T v : A.values().to_vector())
    z += v == T{0} ? 1 : 0;
  return z;
}

template <Value T, Index I>
Csr<T, I> csr_from(I rows, I cols, const std::vector<std::tuple<I, I, double>>& entries) {
  std::vector<I> r, c;
  std::vector<T> v;
  for (auto [i, j, x] : entries) {
    r.push_back(i);
    c.push_back(j);
    v.push_back(static_cast<T>(x));
  }
  return to_csr(Coo<T, I>(rows, cols, Array<I>(r), Array<I>(c), Array<T>(v)));
}

/// The example of docs/formats.md (5×5, 11 entries):
///   [ 1  2  .  .  . ]
///   [ .  3  4  .  . ]
///   [ 5  .  6  7  . ]
///   [ .  .  .  8  9 ]
///   [10  .  .  . 11 ]
template <Value T, Index I>
Csr<T, I> example() {
  return csr_from<T, I>(5, 5,
                        {{0, 0, 1},
                         {0, 1, 2},
                         {1, 1, 3},
                         {1, 2, 4},
                         {2, 0, 5},
                         {2, 2, 6},
                         {2, 3, 7},
                         {3, 3, 8},
                         {3, 4, 9},
                         {4, 0, 10},
                         {4, 4, 11}});
}

/// No fill limit, and a budget of max(2 MiB, 4 × CSR) that keeps the tests
/// fast (larger conversions are refused and logged).
ConvertOptions roomy() {
  ConvertOptions o;
  o.max_bytes_floor = std::size_t{2} << 20;
  o.max_expansion = 4;
  o.min_block_fill = 0.0;
  return o;
}

// ---- exact round trips ------------------------------------------------------

/// Converts every test matrix with `convert_fn`, checks nnz and the explicit
/// zeros, converts back and compares bitwise. Refusals are logged and counted;
/// returns the number of round trips done.
template <Value T, Index I, class Convert>
int round_trip_all(const std::vector<TestMatrix<T, I>>& mats, const std::string& label,
                   Convert&& convert_fn) {
  int done = 0;
  for (auto& [name, A] : mats) {
    const std::string what = fmt::format("{} {}", name, label);
    try {
      const auto M = convert_fn(A);
      EXPECT_EQ(M.rows(), A.rows()) << what;
      EXPECT_EQ(M.cols(), A.cols()) << what;
      EXPECT_EQ(M.nnz(), A.nnz()) << what;
      EXPECT_EQ(static_cast<std::int64_t>(M.explicit_zeros().size()), count_zero_values(A)) << what;
      expect_same_csr(to_csr(M), A, what);
      ++done;
    } catch (const Unsupported& e) {
      std::printf("[  SKIP    ] %s: %s\n", what.c_str(), e.what());
    }
  }
  return done;
}

TYPED_TEST(BlockedFormats, DiaRoundTripIsExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const int done = round_trip_all<T, I>(all_test_matrices<T, I>(), "as DIA",
                                        [](const Csr<T, I>& A) { return to_dia(A, roomy()); });
  EXPECT_GE(done, 7);  // all hand-made matrices but dense-row, tall and (double) one-column
}

TYPED_TEST(BlockedFormats, HdiRoundTripIsExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto mats = all_test_matrices<T, I>();
  for (int H : {1, 3, 32, 1000}) {
    ConvertOptions o = roomy();
    o.hack_size = H;
    const int done = round_trip_all<T, I>(mats, fmt::format("as HDI, H = {}", H),
                                          [&](const Csr<T, I>& A) { return to_hdi(A, o); });
    EXPECT_GE(done, 7) << "H = " << H;
  }
}

TYPED_TEST(BlockedFormats, BcsrRoundTripIsExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // The compiled sizes, odd runtime sizes, and sizes past small matrices.
  const auto mats = all_test_matrices<T, I>();
  for (int b : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 31, 32}) {
    const ConvertOptions o = [&] {
      ConvertOptions r = roomy();
      r.block_size = b;
      return r;
    }();
    const int done =
        round_trip_all<T, I>(mats, fmt::format("as BCSR, b = {}", b), [&](const Csr<T, I>& A) {
          auto M = to_bcsr(A, o);
          EXPECT_EQ(M.block_size(), b);
          return M;
        });
    EXPECT_GE(done, 5) << "b = " << b;
  }
}

TYPED_TEST(BlockedFormats, ExplicitZerosSurviveAndPaddingDoesNotReappear) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Explicit +0 and −0 on occupied diagonals and blocks, next to padding.
  const auto A = csr_from<T, I>(
      4, 5, {{0, 0, 1}, {0, 2, 0.0}, {1, 1, -0.0}, {1, 4, 2}, {2, 2, 3}, {3, 0, 0.0}, {3, 3, 4}});
  ASSERT_EQ(A.nnz(), 7);
  ASSERT_TRUE(std::signbit(A.values()[2]));  // the −0 is kept by COO → CSR
  ConvertOptions o = roomy();
  o.hack_size = 2;
  o.block_size = 3;
  const auto dia = to_dia(A, o);
  const auto hdi = to_hdi(A, o);
  const auto bcsr = to_bcsr(A, o);
  for (std::int64_t nnz : {dia.nnz(), hdi.nnz(), bcsr.nnz()})
    EXPECT_EQ(nnz, 7);
  EXPECT_EQ(dia.explicit_zeros().size(), 3u);
  expect_same_csr(to_csr(dia), A, "DIA");
  expect_same_csr(to_csr(hdi), A, "HDI");
  expect_same_csr(to_csr(bcsr), A, "BCSR");
  // Without explicit zeros, the zero-valued padding never turns into entries.
  const auto B = example<T, I>();
  EXPECT_EQ(to_dia(B).explicit_zeros().size(), 0u);
  expect_same_csr(to_csr(to_dia(B)), B, "DIA, no explicit zeros");
  expect_same_csr(to_csr(to_hdi(B, o)), B, "HDI, no explicit zeros");
  expect_same_csr(to_csr(to_bcsr(B, o)), B, "BCSR, no explicit zeros");
}

TYPED_TEST(BlockedFormats, ConvertDispatchesAndCopiesKeepEverything) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = example<T, I>();
  for (Format f : {Format::Dia, Format::Hdi, Format::Bcsr}) {
    EXPECT_TRUE(convertible(f));
    const Matrix<T, I> M = convert(A, f);
    EXPECT_EQ((format_of<T, I>(ref(M))), f);
    EXPECT_EQ((nnz_of<T, I>(ref(M))), 11);
    expect_same_csr(to_csr<T, I>(ref(M)), A, std::string(to_string(f)));
    // clone() keeps the count without recounting, and the arrays.
    std::visit(
        [&](const auto& m) {
          if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(m)>, Csr<T, I>> &&
                        requires { m.explicit_zeros(); }) {
            const auto c = m.clone();
            EXPECT_EQ(c.nnz(), 11);
            EXPECT_EQ(c.bytes(), m.bytes());
            expect_same_csr(to_csr(c), A, std::string(to_string(f)) + " clone");
          }
        },
        M);
  }
}

// ---- footprints and storage layout on the documented example ---------------

TYPED_TEST(BlockedFormats, DiaStorageAndFootprintOfTheExample) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto D = to_dia(example<T, I>());
  EXPECT_EQ(D.ndiag(), 4);
  expect_bitwise_equal(D.offsets(), Array<I>{-4, -2, 0, 1}, "offsets");
  expect_bitwise_equal(D.values(), Array<T>{0, 0, 0, 0, 10,  // offset −4
                                            0, 0, 5, 0, 0,   // offset −2
                                            1, 3, 6, 8, 11,  // offset 0
                                            2, 4, 7, 9, 0},  // offset 1
                       "values");
  // 4 offsets + 5 rows × 4 diagonals.
  EXPECT_EQ(D.bytes(), 4 * sizeof(I) + 20 * sizeof(T));
  // The validating constructor accepts the same arrays.
  const Dia<T, I> E(5, 5, D.offsets().clone(), D.values().clone());
  EXPECT_EQ(E.nnz(), 11);
  EXPECT_EQ(E.bytes(), D.bytes());
}

TYPED_TEST(BlockedFormats, HdiStorageAndFootprintOfTheExample) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  ConvertOptions o;
  o.hack_size = 2;
  const auto H = to_hdi(example<T, I>(), o);
  EXPECT_EQ(H.hacks(), 3);
  EXPECT_EQ(H.hack_rows(2), 1);
  expect_bitwise_equal(H.hack_ptr(), Array<I>{0, 2, 5, 7}, "hack_ptr");
  expect_bitwise_equal(H.offsets(), Array<I>{0, 1, -2, 0, 1, -4, 0}, "offsets");
  expect_bitwise_equal(H.values(),
                       Array<T>{1, 3, 2, 4,        // hack 0: offsets 0, 1
                                5, 0, 6, 8, 7, 9,  // hack 1: offsets −2, 0, 1
                                10, 11},           // hack 2 (1 row): −4, 0
                       "values");
  // 4 hack pointers + 7 offsets + 12 values.
  EXPECT_EQ(H.bytes(), 4 * sizeof(I) + 7 * sizeof(I) + 12 * sizeof(T));
  const Hdi<T, I> E(5, 5, I{2}, H.hack_ptr().clone(), H.offsets().clone(), H.values().clone());
  EXPECT_EQ(E.nnz(), 11);
}

TYPED_TEST(BlockedFormats, BcsrStorageAndFootprintOfTheExample) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  ConvertOptions o;
  o.block_size = 2;
  const auto B = to_bcsr(example<T, I>(), o);
  EXPECT_EQ(B.block_rows(), 3);
  EXPECT_EQ(B.blocks(), 7);
  expect_bitwise_equal(B.block_ptr(), Array<I>{0, 2, 5, 7}, "block_ptr");
  expect_bitwise_equal(B.block_col(), Array<I>{0, 1, 0, 1, 2, 0, 2}, "block_col");
  expect_bitwise_equal(B.values(), Array<T>{1,  0, 2, 3,   // rows 0-1, cols 0-1 (column-major)
                                            0,  4, 0, 0,   // rows 0-1, cols 2-3
                                            5,  0, 0, 0,   // rows 2-3, cols 0-1
                                            6,  0, 7, 8,   // rows 2-3, cols 2-3
                                            0,  9, 0, 0,   // rows 2-3, col 4 + padding
                                            10, 0, 0, 0,   // row 4 + padding, cols 0-1
                                            11, 0, 0, 0},  // row 4, col 4 + padding
                       "values");
  // 4 block pointers + 7 block columns + 7 blocks × 4.
  EXPECT_EQ(B.bytes(), 4 * sizeof(I) + 7 * sizeof(I) + 28 * sizeof(T));
  EXPECT_DOUBLE_EQ(B.fill(), 11.0 / 28.0);
  const Bcsr<T, I> E(5, 5, 2, B.block_ptr().clone(), B.block_col().clone(), B.values().clone());
  EXPECT_EQ(E.nnz(), 11);
}

// ---- validation -------------------------------------------------------------

TYPED_TEST(BlockedFormats, DiaConstructorNamesTheProblem) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto D = to_dia(example<T, I>());
  const auto values = [&] { return D.values().clone(); };
  const auto bad = [&](Array<I> off, Array<T> val, ExplicitZeros<I> z = {}) {
    return message_of<InvalidInput>(
        [&] { Dia<T, I>(5, 5, std::move(off), std::move(val), std::move(z)); });
  };
  EXPECT_CONTAINS(bad({-4, 0, -2, 1}, values()), "offsets not strictly increasing");
  EXPECT_CONTAINS(bad({-4, -2, 0, 5}, values()), "offsets[3] = 5 is out of range (-5, 5)");
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, Array<T>(19)), "values has 19 entries, expected");
  {
    auto v = values();
    v[0] = T{1};  // row 0 of offset −4 is column −4
    EXPECT_CONTAINS(bad({-4, -2, 0, 1}, std::move(v)),
                    "values[0] = 1 (row 0, offset -4) lies outside");
  }
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, values(), {Array<I>{1}, Array<I>{4}}),
                  "explicit zero 0 at (1, 4) is not a stored position");
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, values(), {Array<I>{0}, Array<I>{0}}),
                  "explicit zero 0 at (0, 0) holds values[10] = 1, expected 0");
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, values(), {Array<I>{3, 2}, Array<I>{1, 1}}),
                  "not strictly increasing by (row, column)");
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, values(), {Array<I>{3, 4}, Array<I>{1}}),
                  "explicit zeros: rows has 2 entries but cols has 1");
  EXPECT_CONTAINS(bad({-4, -2, 0, 1}, values(), {Array<I>{9}, Array<I>{1}}),
                  "lies outside the 5x5 matrix");
  EXPECT_CONTAINS(message_of<InvalidInput>([] { Dia<T, I>(-1, 5, Array<I>{}, Array<T>{}); }),
                  "negative shape");
  // A valid explicit zero: (3, 1) is on offset −2, whose value there is 0.
  const Dia<T, I> ok(5, 5, Array<I>{-4, -2, 0, 1}, values(), {Array<I>{3}, Array<I>{1}});
  EXPECT_EQ(ok.nnz(), 12);
}

TYPED_TEST(BlockedFormats, HdiConstructorNamesTheProblem) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto values = [] { return Array<T>{1, 3, 2, 4, 5, 0, 6, 8, 7, 9, 10, 11}; };
  const Array<I> ptr{0, 2, 5, 7};
  const Array<I> off{0, 1, -2, 0, 1, -4, 0};
  const auto bad = [&](I H, Array<I> p, Array<I> o, Array<T> v) {
    return message_of<InvalidInput>(
        [&] { Hdi<T, I>(5, 5, H, std::move(p), std::move(o), std::move(v)); });
  };
  EXPECT_CONTAINS(bad(0, ptr.clone(), off.clone(), values()), "hack_size = 0");
  EXPECT_CONTAINS(bad(2, Array<I>{0, 2, 7}, off.clone(), values()),
                  "hack_ptr has 3 entries, expected hacks + 1 = ceil(5 / 2) + 1 = 4");
  EXPECT_CONTAINS(bad(2, Array<I>{1, 2, 5, 7}, off.clone(), values()), "hack_ptr[0] = 1");
  EXPECT_CONTAINS(bad(2, Array<I>{0, 5, 2, 7}, off.clone(), values()),
                  "hack_ptr decreases at hack 1");
  EXPECT_CONTAINS(bad(2, Array<I>{0, 2, 5, 6}, off.clone(), values()),
                  "hack_ptr[3] = 6 but offsets has 7 entries");
  EXPECT_CONTAINS(bad(2, ptr.clone(), Array<I>{0, 1, 0, -2, 1, -4, 0}, values()),
                  "offsets not strictly increasing in hack 1");
  EXPECT_CONTAINS(bad(2, ptr.clone(), Array<I>{0, 1, -2, 0, 1, -5, 0}, values()),
                  "offsets[5] = -5 in hack 2 is out of range");
  EXPECT_CONTAINS(bad(2, ptr.clone(), off.clone(), Array<T>(13)),
                  "values has 13 entries, expected hack_size x diagonals");
  // Hack 2 is row 4 alone; its offset 1 would reach column 5.
  EXPECT_CONTAINS(bad(2, ptr.clone(), Array<I>{0, 1, -2, 0, 1, 0, 1},
                      Array<T>{1, 3, 2, 4, 5, 0, 6, 8, 7, 9, 11, 4}),
                  "values[11] = 4 (row 4, hack 2, offset 1) lies outside the matrix");
}

TYPED_TEST(BlockedFormats, BcsrConstructorNamesTheProblem) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  ConvertOptions o;
  o.block_size = 2;
  const auto B = to_bcsr(example<T, I>(), o);
  const auto bad = [&](int b, Array<I> p, Array<I> c, Array<T> v) {
    return message_of<InvalidInput>(
        [&] { Bcsr<T, I>(5, 5, b, std::move(p), std::move(c), std::move(v)); });
  };
  const auto ptr = [&] { return B.block_ptr().clone(); };
  const auto col = [&] { return B.block_col().clone(); };
  const auto val = [&] { return B.values().clone(); };
  EXPECT_CONTAINS(bad(0, ptr(), col(), val()), "block_size = 0 is out of range [1, 32]");
  EXPECT_CONTAINS(bad(33, ptr(), col(), val()), "block_size = 33 is out of range [1, 32]");
  EXPECT_CONTAINS(bad(2, Array<I>{0, 2, 7}, col(), val()),
                  "block_ptr has 3 entries, expected block rows + 1 = ceil(5 / 2) + 1 = 4");
  EXPECT_CONTAINS(bad(2, Array<I>{0, 5, 2, 7}, col(), val()), "block_ptr decreases at block row 1");
  EXPECT_CONTAINS(bad(2, ptr(), Array<I>{0, 1, 0, 1, 3, 0, 2}, val()),
                  "block_col[4] = 3 in block row 1 is out of range [0, 3)");
  EXPECT_CONTAINS(bad(2, ptr(), Array<I>{0, 1, 1, 0, 2, 0, 2}, val()),
                  "block columns not strictly increasing in block row 1");
  EXPECT_CONTAINS(bad(2, ptr(), col(), Array<T>(27)), "values has 27 entries, expected");
  {
    auto v = val();
    v[18] = T{1};  // block 4 (rows 2-3, cols 4-5), local row 0, column 1: column 5
    EXPECT_CONTAINS(bad(2, ptr(), col(), std::move(v)),
                    "values[18] = 1 (block 4, local row 0, column 1) lies past the 5x5 matrix");
  }
  EXPECT_CONTAINS(message_of<InvalidInput>([&] {
                    Bcsr<T, I>(5, 5, 2, ptr(), col(), val(), {Array<I>{1}, Array<I>{4}});
                  }),
                  "explicit zero 0 at (1, 4) is not a stored position");
}

// ---- refusals ---------------------------------------------------------------

/// The n×n anti-diagonal: every entry on its own diagonal.
template <Value T, Index I>
Csr<T, I> anti_diagonal(I n) {
  std::vector<std::tuple<I, I, double>> e;
  for (I i = 0; i < n; ++i)
    e.emplace_back(i, n - 1 - i, 1.0 + i % 7);
  return csr_from<T, I>(n, n, e);
}

TYPED_TEST(BlockedFormats, PaddedFormatsRefuseWithTheSize) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = anti_diagonal<T, I>(1000);
  ConvertOptions o;
  o.max_bytes_floor = 0;  // the limit is max_expansion × CSR bytes
  // DIA: 1000 diagonals of 1000 rows.
  std::string msg = message_of<Unsupported>([&] { to_dia(A, o); });
  EXPECT_CONTAINS(msg, "DIA: 1000 rows x 1000 diagonals = 1000000 stored values for 1000 entries");
  EXPECT_CONTAINS(msg, fmt::format("{} bytes", 1000000 * sizeof(T) + 1000 * sizeof(I)));
  EXPECT_CONTAINS(msg, "max_expansion = 20");
  // Defaults: 8 MB in double is below the 64 MiB floor, so DIA is accepted.
  EXPECT_EQ(to_dia(A).ndiag(), 1000);
  // HDI with hacks of 32: 31 full hacks of 32 diagonals, the last has 8 rows.
  o.max_expansion = 1;
  msg = message_of<Unsupported>([&] { to_hdi(A, o); });
  EXPECT_CONTAINS(
      msg,
      "HDI: 32 hacks of 32 rows (the last 8) with 1000 diagonals in all = 31808 stored values");
  // BCSR, b = 8: one 8×8 block per block row, fill 1/8.
  o.block_size = 8;
  o.min_block_fill = 0.2;
  msg = message_of<Unsupported>([&] { to_bcsr(A, o); });
  EXPECT_CONTAINS(msg,
                  "BCSR: block size 8 gives fill 0.1250 (1000 entries in 125 blocks of 8x8 = "
                  "8000 stored values");
  EXPECT_CONTAINS(msg, "min_block_fill = 0.2");
  // ... and the memory budget once the fill is accepted.
  o.min_block_fill = 0.1;
  msg = message_of<Unsupported>([&] { to_bcsr(A, o); });
  EXPECT_CONTAINS(msg, "BCSR: 125 blocks of 8x8 = 8000 stored values");
  EXPECT_CONTAINS(msg, "above the limit");
  // Through convert(), the same refusals.
  EXPECT_THROW(convert(A, Format::Dia, o), Unsupported);
}

TYPED_TEST(BlockedFormats, BadOptionsAreInvalidInput) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  const auto A = example<T, I>();
  ConvertOptions o;
  o.block_size = 0;
  EXPECT_CONTAINS(message_of<InvalidInput>([&] { to_bcsr(A, o); }),
                  "BCSR: block_size = 0 is out of range [1, 32]");
  o.block_size = 33;
  EXPECT_THROW(to_bcsr(A, o), InvalidInput);
  o.hack_size = 0;
  EXPECT_CONTAINS(message_of<InvalidInput>([&] { to_hdi(A, o); }),
                  "hack_size = 0 must be at least 1");
}

TYPED_TEST(BlockedFormats, BlockLargerThanTheMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // 3×2 dense, b = 32: one padded block.
  const auto A =
      csr_from<T, I>(3, 2, {{0, 0, 1}, {0, 1, 2}, {1, 0, 3}, {1, 1, 4}, {2, 0, 5}, {2, 1, 6}});
  ConvertOptions o;
  o.block_size = 32;
  // By default the fill 6 / 1024 is refused ...
  EXPECT_CONTAINS(message_of<Unsupported>([&] { to_bcsr(A, o); }), "fill 0.0059");
  // ... and allowed with min_block_fill = 0.
  o.min_block_fill = 0;
  const auto B = to_bcsr(A, o);
  EXPECT_EQ(B.blocks(), 1);
  EXPECT_EQ(B.block_rows(), 1);
  EXPECT_EQ(B.values().size(), 1024u);
  expect_same_csr(to_csr(B), A, "b = 32");
  const auto x = random_values<T>(2, fresh_seed());
  std::vector<T> y(3, std::numeric_limits<T>::quiet_NaN());
  spmv(T{1}, B, x, T{0}, y);
  expect_matches(y, expected_spmv<T, I>(T{1}, A, x, T{0}, std::vector<T>(3)), "b = 32 spmv");
}

// ---- 64-bit sizes -------------------------------------------------------------

TEST(BlockedSizes, SizesPast32BitsAreExact) {
  using detail::bcsr_size;
  using detail::dia_size;
  using detail::hdi_size;
  // 2^20 rows × 2^12 diagonals = 2^32 values: past int32, computed in 64 bits.
  auto s = dia_size<double, std::int32_t>(std::int64_t{1} << 20, 4096);
  EXPECT_EQ(s.values, std::int64_t{1} << 32);
  EXPECT_EQ(s.bytes, (std::int64_t{1} << 35) + 4096 * 4);
  // HDI: 2^15 hacks of 32 rows, 2^22 diagonals of which 7 in a last hack of 5 rows.
  s = hdi_size<float, std::int64_t>(32, std::int64_t{1} << 15, std::int64_t{1} << 22, 5, 7);
  EXPECT_EQ(s.values, 32 * ((std::int64_t{1} << 22) - 7) + 5 * 7);
  EXPECT_EQ(s.bytes,
            s.values * 4 + (std::int64_t{1} << 22) * 8 + ((std::int64_t{1} << 15) + 1) * 8);
  // BCSR: 2^22 blocks of 32 × 32 = 2^32 values.
  s = bcsr_size<double, std::int32_t>(std::int64_t{1} << 20, std::int64_t{1} << 22, 32);
  EXPECT_EQ(s.values, std::int64_t{1} << 32);
  EXPECT_EQ(s.bytes, (std::int64_t{1} << 35) + (std::int64_t{1} << 22) * 4 +
                         ((std::int64_t{1} << 20) + 1) * 4);
  // Past 64 bits: an error, not a wrapped size.
  const std::string msg = message_of<InvalidInput>(
      [] { dia_size<double, std::int64_t>(std::int64_t{1} << 40, std::int64_t{1} << 30); });
  EXPECT_CONTAINS(msg, "size overflow");
}

TEST(BlockedSizes, DiaPast32BitsRefusesWithoutAllocating) {
  // 2^20 rows, int32 indices, 2049 entries on 2049 distinct diagonals:
  // 2^20 × 2049 = 2148532224 values (> 2^31) would be 17 GB; the refusal
  // reports the exact count and nothing of that size is allocated.
  using I = std::int32_t;
  const I m = I{1} << 20;
  std::vector<I> ptr(m + 1), col;
  std::vector<double> val;
  for (I i = 0; i < m; ++i) {
    ptr[i + 1] = ptr[i];
    if (i <= 2048) {
      col.push_back(2 * i);  // offset i
      val.push_back(1.0);
      ++ptr[i + 1];
    }
  }
  const Csr<double, I> A(m, m, Array<I>(ptr), Array<I>(col), Array<double>(val));
  const std::string msg = message_of<Unsupported>([&] { to_dia(A); });
  EXPECT_CONTAINS(msg, "1048576 rows x 2049 diagonals = 2148532224 stored values");
  EXPECT_CONTAINS(msg, fmt::format("{} bytes", std::int64_t{2148532224} * 8 + 2049 * 4));
}

// ---- kernels over hack and block sizes ----------------------------------------

/// SpMV of `M` against the reference of A over a grid of (alpha, beta), with
/// y poisoned by NaN when beta = 0.
template <Value T, Index I, class M>
void expect_spmv_matches(const M& m, const Csr<T, I>& A, Algorithm algorithm,
                         const std::string& what) {
  const std::uint64_t seed = fresh_seed();
  const auto x = random_values<T>(A.cols(), seed);
  const auto y0 = random_values<T>(A.rows(), seed + 1);
  matches_over_grid(kScalars.first(3), reference::product(A, std::span<const T>(x)), y0,
                    fmt::format("{} seed={}", what, seed), on_host(m, x),
                    [&](const RunInfo& info, const std::string& w) {
                      if (A.rows() > 0 && A.nnz() > 0) {
                        EXPECT_EQ(info.algorithm, algorithm) << w;
                      }
                    });
}

TYPED_TEST(BlockedFormats, KernelsMatchTheReferenceForEveryHackAndBlockSize) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  auto mats = handmade_matrices<T, I>();
  for (auto& m : generated_matrices<T, I>())
    mats.push_back(std::move(m));
  mats.push_back({"example-5x5", example<T, I>()});
  mats.push_back({"anti-diagonal-300", anti_diagonal<T, I>(300)});
  int ran = 0;
  for (auto& [name, A] : mats) {
    for (int H : {1, 2, 7, 32, 100, 4096}) {
      ConvertOptions o = roomy();
      o.hack_size = H;
      try {
        const auto M = to_hdi(A, o);
        expect_spmv_matches(M, A, Algorithm::CpuRows, fmt::format("{} as HDI, H = {}", name, H));
        ++ran;
      } catch (const Unsupported& e) {
        std::printf("[  SKIP    ] %s as HDI, H = %d: %s\n", name.c_str(), H, e.what());
      }
    }
    for (int b : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 31, 32}) {
      ConvertOptions o = roomy();
      o.block_size = b;
      try {
        const auto M = to_bcsr(A, o);
        expect_spmv_matches(M, A, Algorithm::CpuBlockRows,
                            fmt::format("{} as BCSR, b = {}", name, b));
        ++ran;
      } catch (const Unsupported& e) {
        std::printf("[  SKIP    ] %s as BCSR, b = %d: %s\n", name.c_str(), b, e.what());
      }
    }
    try {
      const auto M = to_dia(A, roomy());
      expect_spmv_matches(M, A, Algorithm::CpuRows, fmt::format("{} as DIA", name));
      ++ran;
    } catch (const Unsupported& e) {
      std::printf("[  SKIP    ] %s as DIA: %s\n", name.c_str(), e.what());
    }
  }
  EXPECT_GE(ran, 200);
}

}  // namespace
}  // namespace spx::test
