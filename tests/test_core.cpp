// Core pieces: enums, Array, format validation, COO/CSR/CSC conversions,
// casts, statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/checked.hpp"
#include "matrices.hpp"
#include "spx/analysis.hpp"
#include "spx/convert.hpp"
#include "spx/core/enums.hpp"

namespace spx::test {
namespace {

TEST(Enums, NamesRoundTrip) {
  for (Format f : kAllFormats)
    EXPECT_EQ(parse_format(to_string(f)), f);
  for (Algorithm a : all_algorithms()) {
    EXPECT_NE(to_string(a), "unknown");
    EXPECT_EQ(parse_algorithm(to_string(a)), a);
  }
  EXPECT_EQ(parse_format("CSR"), Format::Csr);
  expect_error<InvalidInput>([] { parse_format("csx"); }, {"csx", "csr", "bcsr"});
  expect_error<InvalidInput>([] { parse_algorithm("fast"); }, {"fast", "merge_path"});
}

TEST(ArrayTest, OwnsCopiesAndMoves) {
  Array<double> a{1.0, 2.0, 3.0};
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.bytes(), 24u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
  Array<double> b = a.clone();
  b[0] = 7;
  EXPECT_EQ(a[0], 1.0);
  Array<double> c = std::move(b);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(c.to_vector(), (std::vector<double>{7, 2, 3}));
  EXPECT_TRUE(Array<int>().empty());
}

TEST(ArrayTest, DeviceSpace) {
  if (!cuda_available()) {
    // Without a usable GPU, device memory is refused with a clear error.
    EXPECT_THROW(Array<float>(10, Space::Device), Unsupported);
    return;
  }
  const Array<float> h{1.5f, -2.0f, 3.25f};
  const Array<float> d = h.to(Space::Device);
  EXPECT_EQ(d.space(), Space::Device);
  EXPECT_EQ(d.clone().to(Space::Host).to_vector(), h.to_vector());
}

TEST(ArrayTest, HostOutOfMemoryNamesSize) {
  try {
    Array<double> huge(std::size_t{1} << 58);
    ADD_FAILURE() << "allocation of 2^61 bytes succeeded";
  } catch (const OutOfMemory& e) {
    EXPECT_EQ(e.bytes(), std::size_t{1} << 61);
    EXPECT_NE(std::string(e.what()).find("2305843009213693952"), std::string::npos) << e.what();
  }
}

SPX_TYPED_TEST_SUITE(Formats);

TYPED_TEST(Formats, CsrValidationNamesTheProblem) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using A = Array<I>;
  const auto vals = [](std::size_t n) { return Array<T>(std::vector<T>(n, T{1})); };
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(2, 2, A{0, 1}, A{0}, vals(1));
      },
      {"row_ptr has 2 entries", "3"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(2, 2, A{1, 1, 1}, A{0}, vals(1));
      },
      {"row_ptr[0] = 1"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(2, 2, A{0, 2, 1}, A{0}, vals(1));
      },
      {"decreases", "row 1"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(2, 2, A{0, 1, 2}, A{0, 2}, vals(2));
      },
      {"col_idx[1] = 2", "row 1", "[0, 2)"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(1, 3, A{0, 2}, A{1, 0}, vals(2));
      },
      {"strictly increasing", "row 0"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(1, 3, A{0, 2}, A{1, 1}, vals(2));
      },
      {"strictly increasing"});
  expect_error<InvalidInput>(
      [&] {
        Csr<T, I>(1, 3, A{0, 2}, A{0, 1}, vals(3));
      },
      {"col_idx has 2 entries but values has 3"});
  expect_error<InvalidInput>([&] { Csr<T, I>(-1, 3, A{0}, A{}, vals(0)); }, {"negative shape"});
  EXPECT_NO_THROW((Csr<T, I>(2, 3, A{0, 0, 2}, A{0, 2}, vals(2))));
}

TYPED_TEST(Formats, CooAndCscValidation) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  using A = Array<I>;
  const auto vals = [](std::size_t n) { return Array<T>(std::vector<T>(n, T{1})); };
  expect_error<InvalidInput>(
      [&] {
        Coo<T, I>(2, 2, A{0, 2}, A{0, 0}, vals(2));
      },
      {"row_idx[1] = 2", "[0, 2)"});
  expect_error<InvalidInput>(
      [&] {
        Coo<T, I>(2, 2, A{0, 1}, A{0, -1}, vals(2));
      },
      {"col_idx[1] = -1"});
  expect_error<InvalidInput>([&] { Coo<T, I>(2, 2, A{0}, A{0, 1}, vals(2)); }, {"equal length"});
  expect_error<InvalidInput>(
      [&] {
        Csc<T, I>(3, 1, A{0, 2}, A{2, 1}, vals(2));
      },
      {"CSC", "row", "column 0"});
  EXPECT_TRUE((Coo<T, I>(2, 2, A{0, 1}, A{1, 0}, vals(2)).sorted()));
  EXPECT_FALSE((Coo<T, I>(2, 2, A{1, 0}, A{0, 1}, vals(2)).sorted()));
  EXPECT_FALSE((Coo<T, I>(2, 2, A{0, 0}, A{1, 1}, vals(2)).sorted()));  // duplicate
}

TYPED_TEST(Formats, CooToCsrSortsAndSumsDuplicates) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // Entries of a 3×4 matrix, shuffled, with (1,2) given three times.
  Coo<T, I> coo(3, 4, Array<I>{2, 1, 0, 1, 1, 2, 1}, Array<I>{3, 2, 1, 0, 2, 0, 2},
                Array<T>{1, 2, 3, 4, 5, 6, 7});
  const Csr<T, I> csr = to_csr(coo);
  EXPECT_EQ(csr.row_ptr().to_vector(), (std::vector<I>{0, 1, 3, 5}));
  EXPECT_EQ(csr.col_idx().to_vector(), (std::vector<I>{1, 0, 2, 0, 3}));
  EXPECT_EQ(csr.values().to_vector(), (std::vector<T>{3, 4, 14, 6, 1}));
  // The result passes full validation.
  EXPECT_NO_THROW((Csr<T, I>(csr.rows(), csr.cols(), csr.row_ptr().clone(), csr.col_idx().clone(),
                             csr.values().clone())));
  const Coo<T, I> sorted = sort_coo(coo);
  EXPECT_TRUE(sorted.sorted());
  EXPECT_EQ(sorted.nnz(), 5);
}

TYPED_TEST(Formats, RoundTripsAreExact) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  for (auto& [name, A] : all_test_matrices<T, I>()) {
    SCOPED_TRACE(name);
    // rounded: SELL-LP gives back its stored values, A's rounded to its storage type.
    const auto same = [&](const Csr<T, I>& B, bool rounded = false) {
      EXPECT_EQ(B.rows(), A.rows());
      EXPECT_EQ(B.cols(), A.cols());
      EXPECT_EQ(B.row_ptr().to_vector(), A.row_ptr().to_vector());
      EXPECT_EQ(B.col_idx().to_vector(), A.col_idx().to_vector());
      std::vector<T> want = A.values().to_vector();
      if (rounded)
        for (T& v : want)
          v = lowp::widen<T>(lowp::narrow<T>(v));
      EXPECT_EQ(B.values().to_vector(), want);
    };
    same(to_csr(to_coo(A)));
    same(to_csr(to_csc(A)));
    for (Format f : kAllFormats) {
      if (!convertible(f)) continue;
      try {
        const Matrix<T, I> m = convert(A, f);
        SCOPED_TRACE(std::string(to_string(f)));
        same(to_csr<T, I>(ref(m)), reduced_precision(f));
        EXPECT_EQ((nnz_of<T, I>(ref(m))), A.nnz());
      } catch (const Unsupported& e) {
        std::printf("[  SKIP    ] %s as %s: %s\n", name.c_str(), std::string(to_string(f)).c_str(),
                    e.what());
      }
    }
  }
}

TYPED_TEST(Formats, BytesCountEveryArray) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  Csr<T, I> A(2, 3, Array<I>{0, 1, 3}, Array<I>{2, 0, 1}, Array<T>{1, 2, 3});
  EXPECT_EQ(A.bytes(), 3 * sizeof(I) + 3 * sizeof(I) + 3 * sizeof(T));
  EXPECT_EQ(to_coo(A).bytes(), 3 * (2 * sizeof(I) + sizeof(T)));
  EXPECT_EQ(to_csc(A).bytes(), 4 * sizeof(I) + 3 * sizeof(I) + 3 * sizeof(T));
}

TEST(Cast, ChangesTypesAndChecksOverflow) {
  Csr<double, std::int64_t> A(2, 3, Array<std::int64_t>{0, 1, 3}, Array<std::int64_t>{2, 0, 1},
                              Array<double>{1.5, 2.25, -3});
  const auto B = cast<float, std::int32_t>(A);
  EXPECT_EQ(B.col_idx().to_vector(), (std::vector<std::int32_t>{2, 0, 1}));
  EXPECT_EQ(B.values().to_vector(), (std::vector<float>{1.5f, 2.25f, -3.0f}));
  // A shape past 2^31 cannot be represented with int32 indices: the check is
  // arithmetic, nothing of that size is allocated.
  Csr<double, std::int64_t> wide(1, std::int64_t{1} << 33, Array<std::int64_t>{0, 1},
                                 Array<std::int64_t>{std::int64_t{1} << 32}, Array<double>{1});
  expect_error<InvalidInput>([&] { cast<double, std::int32_t>(wide); },
                             {"index overflow", "cols", "8589934592", "i32"});
}

TEST(Checked, IndexAndProductOverflow) {
  using detail::checked_index;
  using detail::checked_mul;
  EXPECT_EQ(checked_index<std::int32_t>(2147483647, "n"), 2147483647);
  EXPECT_THROW(checked_index<std::int32_t>(2147483648LL, "n"), InvalidInput);
  EXPECT_THROW(checked_index<std::int32_t>(-1, "n"), InvalidInput);
  // 3 billion rows of ELL width 4: 12e9 entries, fine in int64 but not int32.
  const std::int64_t entries = checked_mul(3'000'000'000LL, 4, "ELL entries");
  EXPECT_EQ(entries, 12'000'000'000LL);
  EXPECT_THROW(checked_index<std::int32_t>(entries, "ELL entries"), InvalidInput);
  EXPECT_THROW(checked_mul(std::int64_t{1} << 40, std::int64_t{1} << 30, "x"), InvalidInput);
}

TYPED_TEST(Formats, ScatterOnKnownMatrices) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // 4×40, lines of x of 8 columns (MatrixStats::kScatterLine):
  //   row 0: columns 0, 3, 20  lines 0, 0, 2  first row: 0 new, 0 again, 2 new  2
  //   row 1: columns 1, 21, 39 lines 0, 2, 4  row 0 touched 0 and 2: 4 new     1
  //   row 2: empty
  //   row 3: columns 2, 9      lines 0, 1     row 2 touched nothing: both new  2
  // 5 of 8 nonzeros on a new line.
  static_assert(MatrixStats::kScatterLine == 8);
  const Csr<T, I> A(4, 40, Array<I>{0, 3, 6, 6, 8}, Array<I>{0, 3, 20, 1, 21, 39, 2, 9},
                    Array<T>{1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_DOUBLE_EQ(analyze(A).scatter, 5.0 / 8.0);
  // The identity of 64: a new line at rows 0, 8, ..., 56 only.
  std::vector<I> ptr(65), col(64);
  for (I r = 0; r < 64; ++r) {
    ptr[r + 1] = r + 1;
    col[r] = r;
  }
  const Csr<T, I> D(64, 64, Array<I>(ptr), Array<I>(col), Array<T>(std::vector<T>(64, T{1})));
  EXPECT_DOUBLE_EQ(analyze(D).scatter, 8.0 / 64.0);
  // Each row's columns 16 apart from the previous row's: every nonzero new.
  const Csr<T, I> S(3, 64, Array<I>{0, 2, 4, 6}, Array<I>{0, 8, 16, 24, 32, 40},
                    Array<T>{1, 2, 3, 4, 5, 6});
  EXPECT_DOUBLE_EQ(analyze(S).scatter, 1.0);
  const Csr<T, I> E(3, 3, Array<I>::filled(4, I{0}), Array<I>(), Array<T>());
  EXPECT_DOUBLE_EQ(analyze(E).scatter, 0.0);
}

TYPED_TEST(Formats, StatsOnKnownMatrix) {
  using T = typename TypeParam::value_type;
  using I = typename TypeParam::index_type;
  // 4×4:  [a . b .]
  //       [. . . .]
  //       [c d . .]
  //       [. . . e]
  Csr<T, I> A(4, 4, Array<I>{0, 2, 2, 4, 5}, Array<I>{0, 2, 0, 1, 3}, Array<T>{1, 2, 3, 4, 5});
  const MatrixStats s = analyze(A);
  EXPECT_EQ(s.rows, 4);
  EXPECT_EQ(s.nnz, 5);
  EXPECT_DOUBLE_EQ(s.row_mean, 1.25);
  EXPECT_EQ(s.row_min, 0);
  EXPECT_EQ(s.row_max, 2);
  EXPECT_EQ(s.empty_rows, 1);
  EXPECT_NEAR(s.row_std, std::sqrt((0.5625 + 1.5625 + 0.5625 + 0.0625) / 4), 1e-12);
  EXPECT_EQ(s.diagonals, 4);  // offsets j - i: {0, +2, -2, -1, 0}
  EXPECT_EQ(s.lower_bandwidth, 2);
  EXPECT_EQ(s.upper_bandwidth, 2);
  EXPECT_EQ(s.bandwidth, 5);
  // 2×2 blocks: (0,0) holds a; (0,1) holds b; (1,0) holds c,d; (1,1) holds e.
  EXPECT_DOUBLE_EQ(s.fill(2), 5.0 / (4 * 4));
  // 4×4 block: everything in one block.
  EXPECT_DOUBLE_EQ(s.fill(4), 5.0 / 16);
}

}  // namespace
}  // namespace spx::test
